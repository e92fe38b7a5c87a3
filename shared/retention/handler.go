package retention

import (
	"context"
	"errors"
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

// Outcome is what a sweep answers: what it changed, and the expired rows it
// left (held by a turn, or a failed batch).
type Outcome struct {
	Counts
	RowsRemoved          int64 `json:"rowsRemoved"`
	ExpiredRowsRemaining int64 `json:"expiredRowsRemaining"`
}

// Handle runs one sweep and logs its counts (counts only: no ids, no
// content). An error fails the invocation, so the schedule's retries, the
// failure destination and the alarms see it; batches already committed
// stay done. A role that cannot see every tenant is an error before any
// statement runs.
func (h *Handler) Handle(ctx context.Context, event events.EventBridgeEvent) (Outcome, error) {
	cfg := h.Config
	started := time.Now()
	var out Outcome
	err := CheckRole(ctx, h.Pool)
	if err == nil {
		out.Counts, err = Sweep(ctx, h.Pool, cfg)
		out.RowsRemoved = out.Removed()
		var countErr error
		out.ExpiredRowsRemaining, countErr = ExpiredRemaining(ctx, h.Pool, cfg)
		err = errors.Join(err, countErr)
	}
	took := time.Since(started)
	attrs := []any{
		"event_id", event.ID,
		"contexts_deleted", out.ContextsDeleted,
		"supplied_items_deleted", out.SuppliedItemsDeleted,
		"requests_expired", out.RequestsExpired,
		"stream_events_deleted", out.StreamEventsDeleted,
		"streams_deleted", out.StreamsDeleted,
		"followers_deleted", out.FollowersDeleted,
		"rows_removed", out.RowsRemoved,
		"expired_rows_remaining", out.ExpiredRowsRemaining,
		"max_idle_days", cfg.withDefaults().ContextMaxIdle.Hours() / 24,
		"duration_ms", took.Milliseconds(),
	}
	h.emit(out, err, took)
	if err != nil {
		h.Log.ErrorContext(ctx, "retention sweep failed", append(attrs, "err", err)...)
		return out, err
	}
	h.Log.InfoContext(ctx, "retention sweep", attrs...)
	return out, nil
}

// emit writes the sweep's EMF record: its counts, the expired rows left,
// whether it failed, and how long it took.
func (h *Handler) emit(o Outcome, err error, took time.Duration) {
	failed := 0.0
	if err != nil {
		failed = 1
	}
	h.Metrics.Emit(metrics.Record{Metrics: []metrics.Metric{
		{Name: "Sweeps", Unit: metrics.Count, Value: 1},
		{Name: "SweepFailures", Unit: metrics.Count, Value: failed},
		{Name: "RowsRemoved", Unit: metrics.Count, Value: float64(o.RowsRemoved)},
		{Name: "ExpiredRowsRemaining", Unit: metrics.Count, Value: float64(o.ExpiredRowsRemaining)},
		{Name: "ContextsDeleted", Unit: metrics.Count, Value: float64(o.ContextsDeleted)},
		{Name: "SuppliedItemsDeleted", Unit: metrics.Count, Value: float64(o.SuppliedItemsDeleted)},
		{Name: "RequestsExpired", Unit: metrics.Count, Value: float64(o.RequestsExpired)},
		{Name: "StreamEventsDeleted", Unit: metrics.Count, Value: float64(o.StreamEventsDeleted)},
		{Name: "StreamsDeleted", Unit: metrics.Count, Value: float64(o.StreamsDeleted)},
		{Name: "FollowersDeleted", Unit: metrics.Count, Value: float64(o.FollowersDeleted)},
		{Name: "SweepTime", Unit: metrics.Milliseconds, Value: metrics.Millis(took)},
	}})
}
