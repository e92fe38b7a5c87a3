package chat

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"regintel/shared/conversation"
)

// ErrTurnInProgress is a message to a conversation whose previous turn is
// still streaming (a double submit, or a second tab).
var ErrTurnInProgress = conversation.ErrTurnInProgress

// DailyLimitError is a turn refused because its tenant used its daily
// tokens (Config.DailyTokenLimit) before the model was called.
type DailyLimitError struct {
	// RetryAfter is the time left until the next UTC day.
	RetryAfter time.Duration
}

func (e *DailyLimitError) Error() string {
	return fmt.Sprintf("the tenant's daily token limit is reached; retry in %s", e.RetryAfter.Round(time.Second))
}

// checkDailyLimit refuses a turn once the tenant's usage today reached the
// cap; without a cap it never does.
func (e *Engine) checkDailyLimit(usedToday int64) error {
	if e.cfg.DailyTokenLimit <= 0 || usedToday < int64(e.cfg.DailyTokenLimit) {
		return nil
	}
	now := e.now().UTC()
	midnight := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
	return &DailyLimitError{RetryAfter: midnight.Sub(now)}
}

// checkTenantUsage applies the cap to a stateless turn, which starts no
// conversation turn in the store: only then, and only with a cap, is
// usage read on its own. A failed read does not refuse the turn.
func (e *Engine) checkTenantUsage(ctx context.Context, tenantID string, log *slog.Logger) error {
	if e.cfg.DailyTokenLimit <= 0 {
		return nil
	}
	sctx, cancel := e.storeCtx(ctx)
	defer cancel()
	used, err := e.store.TenantTokensToday(sctx, tenantID)
	if err != nil {
		log.Error("read tenant usage failed; the daily cap is not applied to this turn", "err", err)
		return nil
	}
	return e.checkDailyLimit(used)
}

// endTurn gives the turn lease back for a turn that stores nothing.
func (t *Turn) endTurn(ctx context.Context, log *slog.Logger) {
	if t.state.LeaseID == "" {
		return
	}
	sctx, cancel := t.e.storeCtx(ctx)
	defer cancel()
	if err := t.e.store.EndTurn(sctx, t.req.TenantID, t.state.Conversation.ID, t.state.LeaseID); err != nil {
		log.Error("end turn failed; the conversation is free again once the lease expires", "err", err)
	}
}
