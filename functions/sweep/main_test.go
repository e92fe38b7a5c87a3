package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"regintel/shared/config"
	"regintel/shared/dbsetup"
	"regintel/shared/metrics"
	"regintel/shared/metrics/metricstest"
	"regintel/shared/pgpool/pgtest"
	"regintel/shared/retention"
)

// TestScheduledEvent invokes the handler, wired from the environment as
// under Lambda, with events/sweep-schedule.json against a real database.
func TestScheduledEvent(t *testing.T) {
	url := pgtest.NewDatabase(t)
	t.Setenv("DATABASE_URL", url)
	t.Setenv("DB_HOST", "")
	t.Setenv("DB_IAM_AUTH", "")
	t.Setenv("DB_MAX_CONNS", "")
	t.Setenv("RETENTION_DAYS", "10")

	var logs bytes.Buffer
	h, err := wire(context.Background(), slog.New(slog.NewJSONHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Pool.Close)
	ctx := context.Background()
	if _, err := dbsetup.ApplyMigrations(ctx, h.Pool); err != nil {
		t.Fatal(err)
	}

	seedIdleAndActive(t, h.Pool)
	event := readScheduledEvent(t)

	var emf metricstest.Sink
	h.Metrics = metrics.New(&emf, "sweep", nil)
	out, err := h.Handle(ctx, event)
	if err != nil {
		t.Fatal(err)
	}
	want := retention.Outcome{Counts: retention.Counts{ContextsDeleted: 1, SuppliedItemsDeleted: 1, RequestsExpired: 2}, RowsRemoved: 2}
	if out != want {
		t.Errorf("outcome = %+v, want %+v", out, want)
	}
	// One EMF record with the same counts.
	recs := emf.Records(t)
	if len(recs) != 1 || recs[0].Value("Sweeps") != 1.0 || recs[0].Value("ContextsDeleted") != 1.0 ||
		recs[0].Value("SuppliedItemsDeleted") != 1.0 || recs[0].Value("RequestsExpired") != 2.0 || recs[0].Value("SweepFailures") != 0.0 ||
		recs[0].Value("RowsRemoved") != 2.0 || recs[0].Value("ExpiredRowsRemaining") != 0.0 {
		t.Errorf("EMF records: %+v", recs)
	}

	// One structured JSON line with the counts.
	var line map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(logs.Bytes()), &line); err != nil {
		t.Fatalf("log is not one JSON line: %v\n%s", err, logs.String())
	}
	if line["msg"] != "retention sweep" || line["contexts_deleted"] != float64(1) ||
		line["supplied_items_deleted"] != float64(1) || line["requests_expired"] != float64(2) ||
		line["event_id"] != event.ID || line["max_idle_days"] != float64(10) {
		t.Errorf("log line = %v", line)
	}
}

// seedIdleAndActive adds one conversation idle for 20 days and one active 5
// days ago, each with a context, an item and a request overdue by a day.
func seedIdleAndActive(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	tenant := uuid.NewString()
	for _, daysAgo := range []int{20, 5} {
		at := time.Now().Add(-time.Duration(daysAgo) * 24 * time.Hour)
		var id string
		if err := pool.QueryRow(ctx, `INSERT INTO conversations (tenant_id, owner_id, updated_at)
			VALUES ($1::uuid, 'owner', $2::timestamptz) RETURNING id::text`, tenant, at).Scan(&id); err != nil {
			t.Fatal(err)
		}
		for _, sql := range []string{
			`INSERT INTO conversation_context (tenant_id, conversation_id, context_json, updated_at)
			 VALUES ($1::uuid, $2::uuid, '{"activeNodeIds": []}', $3::timestamptz)`,
			`INSERT INTO supplied_context_items (tenant_id, conversation_id, key, content, last_used_at)
			 VALUES ($1::uuid, $2::uuid, 'k', 'text', $3::timestamptz)`,
			`INSERT INTO context_requests (tenant_id, conversation_id, expires_at, created_at)
			 VALUES ($1::uuid, $2::uuid, now() - interval '1 day', $3::timestamptz)`,
		} {
			if _, err := pool.Exec(ctx, sql, tenant, id, at); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
	}
}

// readScheduledEvent reads the sample event and checks it is a schedule's.
func readScheduledEvent(t *testing.T) events.EventBridgeEvent {
	t.Helper()
	raw, err := os.ReadFile("../../events/sweep-schedule.json")
	if err != nil {
		t.Fatal(err)
	}
	var event events.EventBridgeEvent
	if err := json.Unmarshal(raw, &event); err != nil {
		t.Fatal(err)
	}
	if event.DetailType != "Scheduled Event" || event.Source != "aws.events" {
		t.Fatalf("sample is not a scheduled event: %+v", event)
	}
	return event
}

// As the runtime role, row-level security hides every tenant: the sweep
// fails, and says so in its metrics, instead of deleting nothing quietly.
func TestSweepAsTheRuntimeRoleFails(t *testing.T) {
	_, runtime := pgtest.NewRuntimePools(t, 2)
	var emf metricstest.Sink
	h := &retention.Handler{Pool: runtime, Log: slog.New(slog.DiscardHandler), Metrics: metrics.New(&emf, "sweep", nil)}
	_, err := h.Handle(context.Background(), events.EventBridgeEvent{ID: "e"})
	if !errors.Is(err, retention.ErrNotSweepRole) {
		t.Fatalf("Handle as the runtime role: %v, want ErrNotSweepRole", err)
	}
	recs := emf.Records(t)
	if len(recs) != 1 || recs[0].Value("SweepFailures") != 1.0 {
		t.Errorf("EMF records: %+v, want one with SweepFailures 1", recs)
	}
}

func TestStartRefusesBadConfig(t *testing.T) {
	for name, vars := range map[string]map[string]string{
		"bad retention days": {"DATABASE_URL": "postgres://localhost/none", "RETENTION_DAYS": "forever"},
		"no database":        {"DATABASE_URL": "", "DB_HOST": ""},
	} {
		t.Run(name, func(t *testing.T) {
			for k, v := range vars {
				t.Setenv(k, v)
			}
			if _, err := wire(context.Background(), slog.Default()); err == nil {
				t.Fatalf("%s: started", name)
			}
		})
	}
}

// wire builds the function as main does, from the environment.
func wire(ctx context.Context, log *slog.Logger) (*retention.Handler, error) {
	cfg, err := config.FromEnv()
	if err != nil {
		return nil, err
	}
	return build(ctx, cfg, log)
}
