package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ModelPrice is a model's price in US dollars per million tokens: input,
// input served from the provider's prompt cache, and output.
type ModelPrice struct {
	Input       float64
	CachedInput float64
	Output      float64
}

// prices reads LLM_PRICES: comma-separated model=input/cached/output
// entries in US dollars per million tokens, e.g.
// "gpt-4.1-mini=0.40/0.10/1.60". They add to (or replace) the built-in
// list prices; unset, the built-in ones alone apply.
func (r *reader) prices(name string) map[string]ModelPrice {
	var out map[string]ModelPrice
	for _, entry := range r.list(name) {
		model, spec, ok := strings.Cut(entry, "=")
		parts := strings.Split(spec, "/")
		if !ok || strings.TrimSpace(model) == "" || len(parts) != 3 {
			r.fail(fmt.Errorf("%s entry %q: write model=input/cached/output, in US dollars per million tokens", name, entry))
			return nil
		}
		var p [3]float64
		for i, s := range parts {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				r.fail(fmt.Errorf("%s entry %q: %q is not a price (a non-negative number)", name, entry, s))
				return nil
			}
			p[i] = v
		}
		if out == nil {
			out = map[string]ModelPrice{}
		}
		out[strings.TrimSpace(model)] = ModelPrice{Input: p[0], CachedInput: p[1], Output: p[2]}
	}
	return out
}

// dollars reads an amount in US dollars: a non-negative number, 0 unset.
func (r *reader) dollars(name string) float64 {
	v := r.str(name, "")
	if v == "" {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		r.fail(fmt.Errorf("%s=%q is not an amount in US dollars (a non-negative number)", name, v))
		return 0
	}
	return f
}
