package app

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"regintel/shared/chat"
	"regintel/shared/llm"
	"regintel/shared/metrics/metricstest"
)

// With JSON logs (as under Lambda) every chat turn writes one EMF record to
// standard output: the turn, its times, model calls, tokens and concepts.
func TestJSONLogsEmitAMetricsRecordPerTurn(t *testing.T) {
	cfg := localConfig(t)
	cfg.Log.Format = "json"
	stdout := captureStdout(t)
	a, err := Build(context.Background(), cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler)
	resp, err := http.Post(srv.URL+"/chat", "application/json", strings.NewReader(`{"message":"How much VRT is due on an imported car?"}`))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	srv.Close()
	a.Close() // waits for the in-process resolver, which emits its own record

	var sink metricstest.Sink
	_, _ = sink.Write(stdout())
	turns := metricstest.Named(sink.Records(t), "Turns")
	if len(turns) != 1 {
		t.Fatalf("%d turn records, want 1", len(turns))
	}
	r := turns[0]
	// The offline model captures VRT in its first call and answers in a
	// second; the concept resolves to the seeded graph's node.
	want := map[string]any{"Function": "chat", "status": "ok", "Turns": 1.0, "TurnsFailed": 0.0, "ModelCalls": 2.0,
		"ConceptsCaptured": 1.0, "ConceptsResolved": 1.0, "ConceptsRejected": 0.0, "PublishFailures": 0.0}
	for name, v := range want {
		if got := r.Value(name); got != v {
			t.Errorf("%s = %v, want %v", name, got, v)
		}
	}
	for _, name := range []string{"TimeToFirstByte", "TimeToFirstText", "TurnTime"} {
		if r.Units[name] != "Milliseconds" {
			t.Errorf("%s missing or not in milliseconds: %v", name, r.Units)
		}
	}
	if out, _ := r.Value("OutputTokens").(float64); out <= 0 {
		t.Errorf("OutputTokens = %v", r.Value("OutputTokens"))
	}
	if r.Value("request_id") == "" || r.Value("request_id") == nil {
		t.Error("no request_id property")
	}
}

// Text logs (the local default) mean no metrics records.
func TestTextLogsEmitNoMetrics(t *testing.T) {
	stdout := captureStdout(t)
	a, err := Build(context.Background(), localConfig(t), quiet())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler)
	resp, err := http.Post(srv.URL+"/chat", "application/json", strings.NewReader(`{"message":"What is the VAT rate?"}`))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	srv.Close()
	a.Close()
	if out := stdout(); bytes.Contains(out, []byte(`"_aws"`)) {
		t.Fatalf("metrics written with text logs:\n%s", out)
	}
}

// captureStdout points os.Stdout at a pipe until the returned func is
// called; it returns what was written.
func captureStdout(t *testing.T) func() []byte {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	orig := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	restored := false
	restore := func() []byte {
		if restored {
			return nil
		}
		restored = true
		os.Stdout = orig
		_ = w.Close()
		return <-done
	}
	t.Cleanup(func() { restore() })
	return restore
}

// A turn's record carries its cached input tokens and, for a priced
// model, its cost; an unpriced one has no CostUSD at all.
func TestTurnRecordCarriesCachedTokensAndCost(t *testing.T) {
	cost := 0.0042
	priced := turnRecord(chat.TurnStats{Status: "ok", Usage: llm.Usage{InputTokens: 2048, CachedInputTokens: 1024, CostUSD: &cost}})
	values := map[string]float64{}
	for _, m := range priced.Metrics {
		values[m.Name] = m.Value
	}
	if values["CachedInputTokens"] != 1024 || values["CostUSD"] != cost {
		t.Errorf("priced turn metrics %v, want 1024 cached tokens and $%v", values, cost)
	}
	for _, m := range turnRecord(chat.TurnStats{Status: "ok"}).Metrics {
		if m.Name == "CostUSD" {
			t.Errorf("an unpriced turn reports CostUSD %v", m.Value)
		}
	}
}
