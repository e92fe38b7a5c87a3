package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"regintel/shared/chat"
)

// newContextEnv is newEnv with the engine configured by cfg (token budget,
// history window, PII mode).
func newContextEnv(t *testing.T, cfg chat.Config) *env {
	t.Helper()
	return newEnv(t, envOptions{engine: cfg})
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
	return e.send(req)
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
