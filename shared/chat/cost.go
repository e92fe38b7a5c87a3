package chat

import (
	"log/slog"
	"sync"

	"regintel/shared/llm"
)

// TurnUsage is a turn's usage in its metadata: the sum over its model
// calls, then each call's own.
type TurnUsage struct {
	llm.Usage
	Calls []llm.Usage `json:"calls"`
}

// unpricedModels remembers the models already logged as having no price,
// so each is logged once per process.
type unpricedModels struct{ logged sync.Map }

// priceUsage sets the cost of the turn's usage and of each model call's,
// at the configured model's prices. A model without a price has no cost
// (not a zero one), and is logged once.
func (e *Engine) priceUsage(out *conversed, log *slog.Logger) {
	prices, model := e.cfg.Prices, e.cfg.Model
	cost, ok := prices.Cost(model, out.usage)
	if !ok {
		if _, seen := e.unpriced.logged.LoadOrStore(model, true); !seen {
			log.Warn("the model has no price; turns report no cost", "model", model)
		}
		return
	}
	out.usage.CostUSD = &cost
	for i, call := range out.callUsage {
		c, _ := prices.Cost(model, call)
		out.callUsage[i].CostUSD = &c
	}
}
