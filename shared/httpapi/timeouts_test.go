package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"regintel/shared/httpapi"
	"regintel/shared/llm/llmtest"
	"regintel/shared/pgpool/pgtest"
)

// trickle sends a request whose body arrives one byte every gap, the way
// the probe's slow client did, and returns the status and body.
func trickle(t *testing.T, serverURL, method, path, body string, gap time.Duration) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(serverURL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", method, path, len(body))
	go func() {
		for i := range len(body) {
			if _, err := conn.Write([]byte{body[i]}); err != nil {
				return
			}
			time.Sleep(gap)
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw)
}

// TestSlowBodyTimesOut re-runs the probe that trickled a body over 20 s and
// had it accepted: past the body read deadline the answer is a 408.
func TestSlowBodyTimesOut(t *testing.T) {
	e := newEnv(t, envOptions{api: func(o *httpapi.Options) { o.BodyReadTimeout = 300 * time.Millisecond }})
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/chat", `{"message":"What is the VAT rate in Ireland?"}`},
		{"PATCH", "/conversations/00000000-0000-4000-8000-000000000000", `{"title":"A slowly sent title"}`},
	} {
		start := time.Now()
		status, body := trickle(t, e.server.URL, c.method, c.path, c.body, 50*time.Millisecond)
		if status != http.StatusRequestTimeout || !strings.Contains(body, `"body_timeout"`) {
			t.Errorf("%s %s: %d %s", c.method, c.path, status, body)
		}
		if took := time.Since(start); took > 1500*time.Millisecond {
			t.Errorf("%s %s: answered after %v", c.method, c.path, took)
		}
	}
	if n := len(e.llm.Requests()); n != 0 {
		t.Errorf("the model was called %d times", n)
	}
	// A body sent in time is read, and the stream after it outlives the
	// body deadline.
	e.llm.Enqueue(llmtest.Script{Steps: append([]llmtest.Step{llmtest.Text("VAT "), llmtest.Pause(600 * time.Millisecond)}, llmtest.Words("is 23%.")...)})
	r := e.chat(map[string]any{"message": "What is the VAT rate?"}, nil)
	if r.Status != http.StatusOK || r.text() != "VAT is 23%." || r.doneStatus(t) != "ok" {
		t.Fatalf("stream after a prompt body: %d %q %s", r.Status, r.text(), r.Body)
	}
}

// TestStalledDatabaseTimesOut re-runs the probe in which conversation reads
// hung on a stalled database: a JSON route answers 504 with a JSON error
// at its timeout, and works again once the database does.
func TestStalledDatabaseTimesOut(t *testing.T) {
	e := newEnv(t, envOptions{postgres: true, api: func(o *httpapi.Options) { o.RouteTimeout = 500 * time.Millisecond }})
	e.llm.Enqueue(llmtest.TextScript("VAT is charged on supplies."))
	first := e.chat(map[string]any{"message": "What is VAT?"}, nil)
	id := *first.metadata(t).ConversationID

	ctx := context.Background()
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE conversations IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/conversations/" + id, "/conversations", "/conversations/" + id + "/export"} {
		start := time.Now()
		r := e.do("GET", path, nil)
		var body struct{ Error struct{ Code string } }
		_ = json.Unmarshal([]byte(r.Body), &body)
		if r.Status != http.StatusGatewayTimeout || body.Error.Code != "timeout" || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Errorf("GET %s on a stalled database: %d %s", path, r.Status, r.Body)
		}
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("GET %s answered after %v", path, took)
		}
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if r := e.do("GET", "/conversations/"+id, nil); r.Status != http.StatusOK {
		t.Fatalf("after the stall: %d %s", r.Status, r.Body)
	}
}

// TestReadinessChecksTheDatabase: /readyz says which part is down (503);
// /healthz stays a liveness check.
func TestReadinessChecksTheDatabase(t *testing.T) {
	up := newEnv(t, envOptions{postgres: true, api: func(o *httpapi.Options) {}})
	upPool := up.pool
	ready := newEnv(t, envOptions{api: func(o *httpapi.Options) {
		o.Readiness = []httpapi.ReadinessCheck{{Name: "database", Check: upPool.Ping}}
	}})
	if r := ready.do("GET", "/readyz", nil); r.Status != http.StatusOK || !strings.Contains(r.Body, `"database":"ok"`) {
		t.Fatalf("readyz with the database up: %d %s", r.Status, r.Body)
	}
	downPool := pgtest.NewMigratedPool(t, 60)
	downPool.Close()
	down := newEnv(t, envOptions{api: func(o *httpapi.Options) {
		o.Readiness = []httpapi.ReadinessCheck{{Name: "database", Check: downPool.Ping}}
	}})
	r := down.do("GET", "/readyz", nil)
	var body struct {
		Error  struct{ Code, Message string }
		Checks map[string]string
	}
	if err := json.Unmarshal([]byte(r.Body), &body); err != nil || r.Status != http.StatusServiceUnavailable ||
		body.Error.Code != "not_ready" || !strings.Contains(body.Error.Message, "database") || body.Checks["database"] != "down" {
		t.Fatalf("readyz with the database down: %d %s", r.Status, r.Body)
	}
	if r := down.do("GET", "/healthz", nil); r.Status != http.StatusOK {
		t.Fatalf("healthz with the database down: %d %s", r.Status, r.Body)
	}
}

// TestClientRequestIDIsRestricted: a client's X-Request-Id is kept only as
// 1 to 128 characters of [A-Za-z0-9._:-]; anything else is replaced.
func TestClientRequestIDIsRestricted(t *testing.T) {
	e := newEnv(t, envOptions{})
	for id, kept := range map[string]bool{
		"req-1.2:abc_DEF":        true,
		strings.Repeat("a", 128): true,
		strings.Repeat("a", 129): false,
		"two words":              false,
		`quote"d`:                false,
		"line\tbreak":            false,
		"request_id=forged":      false,
		"réq":                    false,
	} {
		req, _ := http.NewRequest("GET", e.server.URL+"/healthz", nil)
		req.Header.Set("X-Request-Id", id)
		got := e.send(req).Header.Get("X-Request-Id")
		if kept != (got == id) || got == "" || len(got) > 128 {
			t.Errorf("X-Request-Id %q: answered %q", id, got)
		}
	}
}
