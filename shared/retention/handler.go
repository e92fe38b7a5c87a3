package retention

import (
	"context"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Handler is the sweep function's Lambda handler, invoked by an EventBridge
// schedule.
type Handler struct {
	Pool   *pgxpool.Pool
	Config Config
	Log    *slog.Logger
}

// Handle runs one sweep and logs its counts (counts only: no ids, no
// content). An error fails the invocation, so the schedule's retries and
// alarms see it; batches already committed stay done.
func (h *Handler) Handle(ctx context.Context, event events.EventBridgeEvent) (Counts, error) {
	cfg := h.Config
	started := time.Now()
	counts, err := Sweep(ctx, h.Pool, cfg)
	attrs := []any{
		"event_id", event.ID,
		"contexts_deleted", counts.ContextsDeleted,
		"supplied_items_deleted", counts.SuppliedItemsDeleted,
		"requests_expired", counts.RequestsExpired,
		"max_idle_days", cfg.withDefaults().ContextMaxIdle.Hours() / 24,
		"duration_ms", time.Since(started).Milliseconds(),
	}
	if err != nil {
		h.Log.ErrorContext(ctx, "retention sweep failed", append(attrs, "err", err)...)
		return counts, err
	}
	h.Log.InfoContext(ctx, "retention sweep", attrs...)
	return counts, nil
}
