package httpapi_test

import (
	"bufio"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"regintel/shared/conversation"
	"regintel/shared/llm/llmtest"
)

// unrecordedStore is a store that hides its recording of turn streams, so
// its turns stream as they did before streams were recorded.
type unrecordedStore struct{ conversation.Store }

// BenchmarkRecordedTurn measures what recording a turn's stream costs, on
// Postgres: the time to the first streamed byte of a turn with recording
// and, interleaved in the same run, without (the same database, the store
// hiding its recording), with a zero-delay model; then the Postgres round
// trips of one turn whose answer takes about a second, both ways.
//
//	make bench   (or: go test -run '^$' -bench RecordedTurn ./shared/httpapi)
func BenchmarkRecordedTurn(b *testing.B) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	recorded := newEnv(b, envOptions{postgres: true})
	plain := newEnv(b, envOptions{store: unrecordedStore{recorded.store}})
	quick := llmtest.Script{Steps: llmtest.Words("VAT is 23% in Ireland.")}
	bodies := map[*env]string{}
	for _, e := range []*env{recorded, plain} {
		e.llm.SetDefault(quick)
		id := *e.chat(map[string]any{"message": "warm up"}, nil).metadata(b).ConversationID
		bodies[e] = `{"conversationId":"` + id + `","message":"What is the VAT rate?"}`
	}
	var withRec, without []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		withRec = append(withRec, timeToFirstByte(b, recorded, bodies[recorded]))
		without = append(without, timeToFirstByte(b, plain, bodies[plain]))
	}
	b.StopTimer()
	b.ReportMetric(quantileMicros(withRec, 0.5), "ttfb_recorded_p50_us")
	b.ReportMetric(quantileMicros(without, 0.5), "ttfb_unrecorded_p50_us")
	b.ReportMetric(quantileMicros(withRec, 0.5)/quantileMicros(without, 0.5), "ttfb_ratio_p50")
	b.ReportMetric(quantileMicros(withRec, 0.99)/quantileMicros(without, 0.99), "ttfb_ratio_p99")

	paced := llmtest.Script{Steps: llmtest.Words(strings.Repeat("The rate is 23 percent. ", 10)), DeltaDelay: 20 * time.Millisecond}
	trips := map[*env]int{}
	for _, e := range []*env{recorded, plain} {
		e.llm.SetDefault(paced)
		before, after := postgresTripsOfATurn(b, e, bodies[e])
		trips[e] = before + after
	}
	b.ReportMetric(float64(trips[recorded]), "pg_trips_per_1s_turn_recorded")
	b.ReportMetric(float64(trips[plain]), "pg_trips_per_1s_turn_unrecorded")
}

// timeToFirstByte posts body to e's /chat and reads the whole stream.
func timeToFirstByte(b *testing.B, e *env, body string) time.Duration {
	start := time.Now()
	req, _ := http.NewRequest(http.MethodPost, e.server.URL+"/chat", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	if _, err := r.ReadByte(); err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	_, _ = r.WriteTo(discard{})
	return took
}
