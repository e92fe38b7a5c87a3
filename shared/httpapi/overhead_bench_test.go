package httpapi_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"regintel/shared/auth"
	"regintel/shared/llm/llmtest"
	"regintel/shared/tracing"
)

// BenchmarkTurnOverhead measures the backend's time to the first streamed
// byte of a turn on an existing conversation (zero-delay test model), and,
// interleaved in the same run, a baseline of the raw Postgres round trips a
// turn needs (load conversation + history + context, insert the turn, merge
// the context) issued directly through pgx. It reports p50/p99 of both and
// their ratio.
//
//	make bench   (or: go test -run '^$' -bench TurnOverhead ./shared/httpapi)
func BenchmarkTurnOverhead(b *testing.B) {
	// Keep the result line clean: the pool logs through the default logger.
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	e := newEnv(b, envOptions{postgres: true})
	e.llm.SetDefault(llmtest.Script{Steps: llmtest.Steps(llmtest.Words("VAT is 23%."),
		llmtest.ToolCallJSON("capture_concepts", captureArgs(map[string]any{"domain": "TAX", "kind": "VAT", "jurisdiction": "IE", "prefLabel": "VAT"}), 1))})
	convID := *e.chat(map[string]any{"message": "warm up"}, nil).metadata(b).ConversationID
	tenant := auth.TenantUUID("tenant-a")
	body := `{"conversationId":"` + convID + `","message":"What is the VAT rate?"}`

	var ttfb, baseline []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ttfb = append(ttfb, turnTimeToFirstByte(b, e.server.URL, body))
		baseline = append(baseline, directTurnQueries(b, e.pool, tenant, convID))
	}
	b.StopTimer()
	b.ReportMetric(quantileMicros(ttfb, 0.5), "ttfb_p50_us")
	b.ReportMetric(quantileMicros(ttfb, 0.99), "ttfb_p99_us")
	b.ReportMetric(quantileMicros(baseline, 0.5), "pg_baseline_p50_us")
	b.ReportMetric(quantileMicros(baseline, 0.99), "pg_baseline_p99_us")
	b.ReportMetric(quantileMicros(ttfb, 0.5)/quantileMicros(baseline, 0.5), "ratio_p50")
	b.ReportMetric(quantileMicros(ttfb, 0.99)/quantileMicros(baseline, 0.99), "ratio_p99")
	before, after := postgresTripsOfATurn(b, e, body)
	b.ReportMetric(float64(before), "pg_trips_before_first_byte")
	b.ReportMetric(float64(after), "pg_trips_after_first_byte")
}

// turnTimeToFirstByte posts one chat turn and times its first byte; it reads
// the rest of the stream untimed.
func turnTimeToFirstByte(b *testing.B, serverURL, body string) time.Duration {
	b.Helper()
	start := time.Now()
	req, _ := http.NewRequest(http.MethodPost, serverURL+"/chat", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	r := bufio.NewReader(resp.Body)
	if _, err := r.ReadByte(); err != nil {
		b.Fatal(err)
	}
	ttfb := time.Since(start)
	_, _ = r.WriteTo(discard{})
	resp.Body.Close()
	return ttfb
}

// directTurnQueries times the queries a turn needs, sent directly through
// pgx: load the conversation, history and context, insert the turn, merge
// the context.
func directTurnQueries(b *testing.B, pool *pgxpool.Pool, tenant, convID string) time.Duration {
	b.Helper()
	ctx := context.Background()
	start := time.Now()
	var n int
	if err := pool.QueryRow(ctx, `SELECT c.last_turn_number + coalesce((SELECT count(*) FROM (SELECT 1 FROM conversation_turns t WHERE t.conversation_id = c.id ORDER BY turn_number DESC LIMIT 5) h), 0)
		+ coalesce((SELECT jsonb_array_length(context_json->'activeNodeIds') FROM conversation_context x WHERE x.tenant_id = c.tenant_id AND x.conversation_id = c.id), 0)
		FROM conversations c WHERE c.tenant_id = $1 AND c.id = $2`, tenant, convID).Scan(&n); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `WITH n AS (UPDATE conversations SET last_turn_number = last_turn_number + 1 WHERE tenant_id = $1 AND id = $2 RETURNING last_turn_number)
		INSERT INTO conversation_turns (tenant_id, conversation_id, turn_number, user_text, assistant_text) SELECT $1, $2, n.last_turn_number, 'q', 'a' FROM n`, tenant, convID); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE conversation_context SET context_json = jsonb_build_object('activeNodeIds', merge_active_node_ids(context_json->'activeNodeIds', $3::text[], 50)), updated_at = now()
		WHERE tenant_id = $1 AND conversation_id = $2`, tenant, convID, []string{"TAX:IE:VAT"}); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// postgresTripsOfATurn counts the Postgres round trips (a batch or a
// query outside one, each a span of the pgx tracer) of one more turn,
// untimed: those that start before the client reads the first byte, and
// those after (storing the answer).
func postgresTripsOfATurn(b *testing.B, e *env, body string) (before, after int) {
	exporter := tracetest.NewInMemoryExporter()
	tracing.Install(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter)))
	defer tracing.Uninstall()
	req, _ := http.NewRequest(http.MethodPost, e.server.URL+"/chat", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	r := bufio.NewReader(resp.Body)
	if _, err := r.ReadByte(); err != nil {
		b.Fatal(err)
	}
	firstByte := time.Now()
	_, _ = r.WriteTo(discard{})
	resp.Body.Close()
	for _, s := range exporter.GetSpans() {
		if s.Name != "postgres batch" && s.Name != "postgres query" {
			continue
		}
		if s.StartTime.Before(firstByte) {
			before++
		} else {
			after++
		}
	}
	return before, after
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// quantileMicros is the q-quantile of d (nearest rank below), in
// microseconds.
func quantileMicros(d []time.Duration, q float64) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[int(q*float64(len(s)-1))].Microseconds())
}
