package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"regintel/shared/conversation"
	"regintel/shared/llm"
)

// What a turn does when the daily cap's ledger cannot be charged
// (Config.CapOnError).
const (
	// CapClosed refuses the turn (the default): the cap holds while the
	// store is down.
	CapClosed = "closed"
	// CapOpen lets the turn run uncounted.
	CapOpen = "open"
)

// DefaultOutputAllowance is the output tokens one model call is assumed
// not to exceed when a turn's worst case is charged.
const DefaultOutputAllowance = 4096

// ErrUsageUnavailable is a turn refused because the daily cap could not
// be checked and CapOnError is CapClosed.
var ErrUsageUnavailable = errors.New("the tenant's token usage cannot be checked")

// DailyLimitError is a turn refused because its tenant used its daily
// tokens (Config.DailyTokenLimit), or spent its daily cost
// (Config.DailyCostLimitUSD), before the model was called.
type DailyLimitError struct {
	// RetryAfter is the time left until the next UTC day.
	RetryAfter time.Duration
	// Cost says the cost limit was met, not the token limit.
	Cost bool
}

func (e *DailyLimitError) Error() string {
	limit := "token"
	if e.Cost {
		limit = "cost"
	}
	return fmt.Sprintf("the tenant's daily %s limit is reached; retry in %s", limit, e.RetryAfter.Round(time.Second))
}

// worstCase is the most one turn can use: every model call of the tool
// loop sends the fitted prompt plus the earlier calls' output and receives
// the output allowance. Its cost is at the model's price (zero without
// one: a cost limit needs a priced model, which the process checks at
// start).
func (e *Engine) worstCase() conversation.TokenCharge {
	calls := int64(e.cfg.MaxModelCalls)
	allowance := int64(e.cfg.OutputAllowance)
	input := calls*int64(e.cfg.TokenBudget) + calls*(calls-1)/2*allowance
	output := calls * allowance
	worst := e.priced(input, output)
	// Held for the turn's lease; a turn that dies unsettled is charged one
	// model call (its fitted prompt and allowance) once the lease lapses.
	lapse := e.priced(int64(e.cfg.TokenBudget), allowance)
	worst.LeaseFor, worst.Lapse = e.cfg.TurnLease, &lapse
	return worst
}

// priced is a charge of input and output tokens, at the model's price.
func (e *Engine) priced(input, output int64) conversation.TokenCharge {
	c := conversation.TokenCharge{Tokens: input + output}
	if cost, ok := e.cfg.Prices.Cost(e.cfg.Model, llm.Usage{InputTokens: int(input), OutputTokens: int(output)}); ok {
		c.CostUSD = cost
	}
	return c
}

// chargeDailyCap charges the turn's worst case to its tenant's day before
// anything else is done; without a token or cost cap it does nothing. At
// a cap the turn is refused; when the ledger cannot be charged, CapOnError
// decides.
func (t *Turn) chargeDailyCap(ctx context.Context) error {
	e := t.e
	limits := conversation.DailyLimits{Tokens: int64(e.cfg.DailyTokenLimit), CostUSD: e.cfg.DailyCostLimitUSD}
	if limits.Tokens <= 0 && limits.CostUSD <= 0 {
		return nil
	}
	sctx, cancel := e.storeCtx(ctx)
	defer cancel()
	charge, err := e.store.ChargeTokens(sctx, t.req.TenantID, e.worstCase(), limits)
	switch {
	case errors.Is(err, conversation.ErrOverLimit), errors.Is(err, conversation.ErrOverCostLimit):
		now := e.now().UTC()
		midnight := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
		return &DailyLimitError{RetryAfter: midnight.Sub(now), Cost: errors.Is(err, conversation.ErrOverCostLimit)}
	case err != nil && e.cfg.CapOnError == CapOpen:
		t.log.Error("charge the daily token cap failed; the turn runs uncounted", "err", err)
		return nil
	case err != nil:
		t.log.Error("charge the daily token cap failed; the turn is refused", "err", err)
		return fmt.Errorf("%w: %w", ErrUsageUnavailable, err)
	}
	t.charge = &charge
	return nil
}

// settleDailyCap replaces the turn's charge by what it used; a turn that
// stores nothing records its usage with it. A failed settlement leaves
// the worst case charged: the cap errs on the side of holding.
func (t *Turn) settleDailyCap(ctx context.Context, used llm.Usage) {
	if t.charge == nil {
		return
	}
	charge := *t.charge
	t.charge = nil
	sctx, cancel := t.e.storeCtx(ctx)
	defer cancel()
	settle := conversation.Settlement{Usage: used, Record: !t.persist}
	if err := t.e.store.SettleTokens(sctx, t.req.TenantID, charge, settle); err != nil {
		t.log.Error("settle the daily token cap failed; the turn's worst case stays charged", "err", err)
	}
}

// estimateCall is the usage of a model call whose usage never arrived (cut
// off before its end): the request's tokens by our count as input, the
// streamed text and tool calls as output.
func (t *Turn) estimateCall(req llm.Request, text string, calls []llm.ToolCall) llm.Usage {
	count := t.e.tokens.Count
	in := count(req.System)
	for _, m := range req.Messages {
		in += count(m.Content)
		for _, c := range m.ToolCalls {
			in += count(c.Name) + count(string(c.ArgsJSON))
		}
	}
	for _, tool := range req.Tools {
		schema, _ := json.Marshal(tool.Parameters)
		in += count(tool.Name) + count(tool.Description) + count(string(schema))
	}
	out := count(text)
	for _, c := range calls {
		out += count(c.Name) + count(string(c.ArgsJSON))
	}
	return llm.Usage{InputTokens: in, OutputTokens: out, TotalTokens: in + out, Estimated: true}
}

// endTurn gives the turn lease back for a turn that stores nothing.
func (t *Turn) endTurn(ctx context.Context) {
	if t.state.LeaseID == "" {
		return
	}
	sctx, cancel := t.e.storeCtx(ctx)
	defer cancel()
	if err := t.e.store.EndTurn(sctx, t.req.TenantID, t.state.Conversation.ID, t.state.LeaseID); err != nil {
		t.log.Error("end turn failed; the conversation is free again once the lease expires", "err", err)
	}
}
