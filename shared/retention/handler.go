package retention

import (
	"context"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/jackc/pgx/v5/pgxpool"

	"regintel/shared/metrics"
)

// Handler is the sweep function's Lambda handler, invoked by an EventBridge
// schedule.
type Handler struct {
	Pool   *pgxpool.Pool
	Config Config
	Log    *slog.Logger
	// Metrics receives one EMF record per sweep (nil: none).
	Metrics *metrics.Emitter
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
	h.emit(counts, err, time.Since(started))
	if err != nil {
		h.Log.ErrorContext(ctx, "retention sweep failed", append(attrs, "err", err)...)
		return counts, err
	}
	h.Log.InfoContext(ctx, "retention sweep", attrs...)
	return counts, nil
}

// emit writes the sweep's EMF record: its counts, whether it failed, and
// how long it took.
func (h *Handler) emit(c Counts, err error, took time.Duration) {
	failed := 0.0
	if err != nil {
		failed = 1
	}
	h.Metrics.Emit(metrics.Record{Metrics: []metrics.Metric{
		{Name: "Sweeps", Unit: metrics.Count, Value: 1},
		{Name: "SweepFailures", Unit: metrics.Count, Value: failed},
		{Name: "ContextsDeleted", Unit: metrics.Count, Value: float64(c.ContextsDeleted)},
		{Name: "SuppliedItemsDeleted", Unit: metrics.Count, Value: float64(c.SuppliedItemsDeleted)},
		{Name: "RequestsExpired", Unit: metrics.Count, Value: float64(c.RequestsExpired)},
		{Name: "SweepTime", Unit: metrics.Milliseconds, Value: metrics.Millis(took)},
	}})
}
