// Package pricing turns a model's token usage into US dollars from a price
// table: per model, the price of a million input tokens, of a million
// input tokens served from the provider's prompt cache, and of a million
// output tokens.
package pricing

import (
	"regexp"

	"regintel/shared/llm"
)

// Price is a model's list price in US dollars per million tokens.
type Price struct {
	Input       float64
	CachedInput float64
	Output      float64
}

// Table is prices by model name.
type Table map[string]Price

// Defaults are OpenAI's standard-tier list prices of the models the
// service is deployed with.
func Defaults() Table {
	return Table{
		"gpt-4.1":      {Input: 2.00, CachedInput: 0.50, Output: 8.00},
		"gpt-4.1-mini": {Input: 0.40, CachedInput: 0.10, Output: 1.60},
		"gpt-4.1-nano": {Input: 0.10, CachedInput: 0.025, Output: 0.40},
		"gpt-4o-mini":  {Input: 0.15, CachedInput: 0.075, Output: 0.60},
	}
}

// With is the table with other's prices added, replacing those of the
// same model.
func (t Table) With(other Table) Table {
	out := make(Table, len(t)+len(other))
	for model, p := range t {
		out[model] = p
	}
	for model, p := range other {
		out[model] = p
	}
	return out
}

// snapshotDate is the date a pinned model snapshot carries, as in
// gpt-4.1-mini-2025-04-14: the snapshot costs what its model costs.
var snapshotDate = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}$`)

// Lookup is the price of model, or of the model a snapshot pins.
func (t Table) Lookup(model string) (Price, bool) {
	if p, ok := t[model]; ok {
		return p, true
	}
	p, ok := t[snapshotDate.ReplaceAllString(model, "")]
	return p, ok
}

// Cost is u at model's prices, false when the model has no price. Cached
// input tokens are part of the input tokens, billed at the cached price.
func (t Table) Cost(model string, u llm.Usage) (float64, bool) {
	p, ok := t.Lookup(model)
	if !ok {
		return 0, false
	}
	cached := min(u.CachedInputTokens, u.InputTokens)
	fresh := u.InputTokens - cached
	micro := float64(fresh)*p.Input + float64(cached)*p.CachedInput + float64(u.OutputTokens)*p.Output
	return micro / 1e6, true
}
