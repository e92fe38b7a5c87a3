package compat_test

// The contract test holds a conversation through the compatibility routes
// as the reference web app does, asserting each field that app reads with
// its type; it runs on the memory store and on Postgres. Every exchange
// is also validated against api/openapi.yaml (apitest, when not -short).

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"regintel/api/apitest"
	"regintel/shared/auth"
	"regintel/shared/chat"
	"regintel/shared/conversation"
	convmem "regintel/shared/conversation/memory"
	convpg "regintel/shared/conversation/postgres"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/httpapi"
	"regintel/shared/llm/llmtest"
	"regintel/shared/llm/openai"
	"regintel/shared/pgpool/pgtest"
	"regintel/shared/queue"
)

// Two users of one tenant; the dev authenticator reads them from headers.
const (
	tenant = "tenant-compat"
	owner  = "user-owner"
	other  = "user-other"
)

// noQueue drops captured concepts, so a concept the seeded graph lacks
// stays out of it and is labelled by its capture.
type noQueue struct{}

func (noQueue) Publish(context.Context, ...queue.Envelope) error { return nil }

type env struct {
	t      *testing.T
	server *httptest.Server
	llm    *llmtest.Server
}

type envOptions struct {
	postgres  bool
	compatOff bool
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	e := &env{t: t, llm: llmtest.NewServer(t)}
	graph, err := graphmem.NewSeeded(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var store conversation.Store
	var sharing conversation.SharingStore
	if o.postgres {
		pg := convpg.New(pgtest.NewMigratedPool(t, 10))
		store, sharing = pg, convpg.NewSharing(pg)
	} else {
		mem := convmem.New()
		store, sharing = mem, convmem.NewSharing(mem)
	}
	provider := openai.NewResponses(openai.Config{APIKey: "test-key", BaseURL: e.llm.BaseURL(), Model: "gpt-test", HTTPClient: e.llm.Client()})
	engine := chat.New(chat.Deps{Store: store, Graph: graph, Provider: provider, Concepts: noQueue{}, Log: quiet()}, chat.Config{Model: "gpt-test"})
	handler := httpapi.New(httpapi.Options{
		Auth:   auth.Dev{},
		Engine: engine, Conversations: store, Graph: graph, GraphChanges: graph,
		Feed:      httpapi.FeedConfig{PollInterval: 20 * time.Millisecond, SettleDelay: -1},
		CompatAPI: !o.compatOff, Sharing: sharing, Log: quiet(),
	})
	// The document describes a deployment with the routes on.
	if !o.compatOff {
		handler = apitest.Checked(t, handler)
	}
	e.server = httptest.NewServer(handler)
	t.Cleanup(e.server.Close)
	return e
}

type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends a request as user; body, when set, is sent as JSON.
func (e *env) do(user, method, path string, body any) response {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = strings.NewReader(string(raw))
	}
	req, _ := http.NewRequest(method, e.server.URL+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("X-Tenant-Id", tenant)
	req.Header.Set("X-User-Id", user)
	resp, err := e.server.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: raw}
}

// json decodes the body as the reference app does: into plain values.
func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("status %d, body not a JSON object: %s", r.status, r.body)
	}
	return v
}

// openStream opens an SSE route and returns its frames as they arrive;
// the stream closes with the test.
func (e *env) openStream(user, path string) <-chan apitest.Frame {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e.t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.server.URL+path, nil)
	req.Header.Set("X-Tenant-Id", tenant)
	req.Header.Set("X-User-Id", user)
	resp, err := e.server.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		e.t.Fatalf("GET %s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	frames := make(chan apitest.Frame, 64)
	go func() {
		defer resp.Body.Close()
		defer close(frames)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var block []string
		for sc.Scan() {
			if line := sc.Text(); line != "" {
				block = append(block, line)
				continue
			}
			if f := apitest.ParseFrame(strings.Join(block, "\n")); f.Data != "" {
				frames <- f
			}
			block = nil
		}
	}()
	return frames
}

func next(t *testing.T, frames <-chan apitest.Frame) apitest.Frame {
	t.Helper()
	select {
	case f, ok := <-frames:
		if !ok {
			t.Fatal("the stream ended")
		}
		return f
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5s")
	}
	return apitest.Frame{}
}
