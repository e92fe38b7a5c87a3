package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"regintel/shared/auth"
	"regintel/shared/chat"
	convpg "regintel/shared/conversation/postgres"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/httpapi"
	"regintel/shared/llm/llmtest"
	"regintel/shared/llm/openai"
	"regintel/shared/postgres/pgtest"
)

// newContextEnv is newEnv with the engine configured by cfg (token budget,
// history window, PII mode): Postgres, the fake model, the seeded graph.
func newContextEnv(t *testing.T, cfg chat.Config) *env {
	t.Helper()
	e := &env{t: t, llm: llmtest.NewServer(t)}
	mem, err := graphmem.NewSeeded(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	e.graph = mem
	e.queue = &resolvingPublisher{graph: mem}
	e.pool = pgtest.NewMigratedPool(t, 10)
	provider := openai.NewResponses(openai.Config{APIKey: "test-key", BaseURL: e.llm.BaseURL(), Model: "gpt-test", HTTPClient: e.llm.Client()})
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.Model = "gpt-test"
	engine := chat.New(chat.Deps{Store: convpg.New(e.pool), Graph: mem, Provider: provider, Concepts: e.queue, Log: quiet}, cfg)
	e.server = httptest.NewServer(httpapi.New(httpapi.Options{
		Auth:   auth.Dev{DefaultTenant: "tenant-a", DefaultUser: "user-a"},
		Engine: engine, Log: quiet,
	}))
	t.Cleanup(e.server.Close)
	return e
}

// do sends method to path with an optional JSON body.
func (e *env) do(method, path string, body any) chatResponse {
	e.t.Helper()
	var reader io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			e.t.Fatal(err)
		}
		reader = strings.NewReader(string(raw))
	}
	req, err := http.NewRequest(method, e.server.URL+path, reader)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := chatResponse{Status: resp.StatusCode, Header: resp.Header, Body: string(raw)}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		out.Events = parseSSE(out.Body)
	}
	return out
}

// doneStatus is the status of the stream's final done event.
func (r chatResponse) doneStatus(t testing.TB) string {
	t.Helper()
	if len(r.Events) == 0 || r.Events[len(r.Events)-1].Name != "done" {
		t.Fatalf("stream does not end with done: %d %s", r.Status, r.Body)
	}
	var done struct{ Status string }
	_ = json.Unmarshal(r.Events[len(r.Events)-1].Data, &done)
	return done.Status
}

// warnings joins the texts of every warning event.
func (r chatResponse) warnings() string {
	var all []string
	for _, ev := range r.named("warning") {
		var w struct{ Warnings []string }
		_ = json.Unmarshal(ev.Data, &w)
		all = append(all, w.Warnings...)
	}
	return strings.Join(all, "\n")
}

// query runs one SQL returning a single value.
func (e *env) query(sql string, args []any, dest ...any) {
	e.t.Helper()
	if err := e.pool.QueryRow(context.Background(), sql, args...).Scan(dest...); err != nil {
		e.t.Fatalf("%s: %v", sql, err)
	}
}

func newRequest(method, url string) (*http.Request, error) {
	return http.NewRequest(method, url, nil)
}
