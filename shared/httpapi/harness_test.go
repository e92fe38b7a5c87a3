package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"regintel/shared/auth"
	"regintel/shared/chat"
	"regintel/shared/conversation"
	convmem "regintel/shared/conversation/memory"
	convpg "regintel/shared/conversation/postgres"
	"regintel/shared/conversation/storetest"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/graph/write"
	"regintel/shared/httpapi"
	"regintel/shared/llm"
	"regintel/shared/llm/llmtest"
	"regintel/shared/llm/openai"
	"regintel/shared/pgpool/pgtest"
	"regintel/shared/queue"
	"regintel/shared/resolver"
)

// resolvingPublisher stands in for the concept-resolution queue: the
// resolver (through the graph write service, without enrichment) consumes
// each envelope before Publish returns, so a test's next turn sees what it
// wrote, and every envelope is recorded.
type resolvingPublisher struct {
	mu    sync.Mutex
	graph *graphmem.Store
	sent  []queue.Envelope
	fail  error
}

func (p *resolvingPublisher) Publish(ctx context.Context, msgs ...queue.Envelope) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return p.fail
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := resolver.New(write.NewService(p.graph, write.WithLogger(quiet)), nil, resolver.WithLogger(quiet))
	for _, m := range msgs {
		p.sent = append(p.sent, m)
		if err := h.HandleEnvelope(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

type env struct {
	t      testing.TB
	server *httptest.Server
	llm    *llmtest.Server
	pool   *pgxpool.Pool // the owner's pool; nil on the memory store
	graph  *graphmem.Store
	queue  *resolvingPublisher
	store  conversation.Store // shared by a second instance (envOptions.store)
}

// conversationStore is what both stores implement: the turn's storage and
// the conversation routes'.
type conversationStore interface {
	storetest.Store
	conversation.Admin
}

type envOptions struct {
	postgres  bool                   // Postgres on a fresh database instead of the memory store
	store     conversation.Store     // overrides both
	graph     testGraph              // default: the seeded memory graph
	protocol  llmtest.Protocol       // default: Responses
	engine    chat.Config            // token budget, history window, PII mode...
	keepAlive time.Duration          // default: httpapi.DefaultKeepAlive
	demoPage  bool                   // serve the demo page too
	api       func(*httpapi.Options) // adjusts the handler's options (limits, readiness)
	log       *slog.Logger           // the engine's and the handler's logger (default: discarded)
}

// forEachStore runs test on the memory store and, when the test servers
// are up, on Postgres.
func forEachStore(t *testing.T, test func(t *testing.T, postgres bool)) {
	t.Run("memory", func(t *testing.T) { test(t, false) })
	t.Run("postgres", func(t *testing.T) { test(t, true) })
}

func newEnv(t testing.TB, o envOptions) *env {
	t.Helper()
	e := &env{t: t, llm: llmtest.NewServer(t)}
	mem, err := graphmem.NewSeeded(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	e.graph = mem
	e.queue = &resolvingPublisher{graph: mem}
	var admin conversation.Admin
	store := o.store
	switch {
	case store != nil:
		admin, _ = store.(conversation.Admin)
	case o.postgres:
		// The store signs in as the runtime role, under row-level
		// security; e.pool is the owner's, for looking at rows directly.
		var runtime *pgxpool.Pool
		e.pool, runtime = pgtest.NewRuntimePools(t, 60)
		pg := convpg.New(runtime)
		store, admin = pg, pg
	default:
		mem := convmem.New()
		store, admin = mem, mem
	}
	e.store = store
	var reader testGraph = mem
	if o.graph != nil {
		reader = o.graph
	}
	ocfg := openai.Config{APIKey: "test-key", BaseURL: e.llm.BaseURL(), Model: "gpt-test", HTTPClient: e.llm.Client()}
	var provider llm.Provider = openai.NewResponses(ocfg)
	if o.protocol == llmtest.ProtocolChat {
		provider = openai.NewChat(ocfg)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	if o.log != nil {
		quiet = o.log
	}
	cfg := o.engine
	cfg.Model = "gpt-test"
	engine := chat.New(chat.Deps{Store: store, Graph: reader, Provider: provider, Concepts: e.queue, Log: quiet}, cfg)
	opts := httpapi.Options{
		Auth:   auth.Dev{DefaultTenant: "tenant-a", DefaultUser: "user-a"},
		Engine: engine, Conversations: admin, Graph: reader, GraphChanges: mem,
		KeepAlive: o.keepAlive, DemoPage: o.demoPage, Log: quiet,
	}
	if o.api != nil {
		o.api(&opts)
	}
	e.server = httptest.NewServer(checkedByContract(t, httpapi.New(opts)))
	t.Cleanup(e.server.Close)
	return e
}

// sseEvent is one parsed SSE frame.
type sseEvent struct {
	Name string
	Data json.RawMessage
}

type chatResponse struct {
	Status int
	Header http.Header
	Body   string
	Events []sseEvent
}

func (r chatResponse) named(name string) []sseEvent {
	var out []sseEvent
	for _, e := range r.Events {
		if e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

func (r chatResponse) text() string {
	var b strings.Builder
	for _, e := range r.named("message") {
		var m struct{ Text string }
		_ = json.Unmarshal(e.Data, &m)
		b.WriteString(m.Text)
	}
	return b.String()
}

func (r chatResponse) metadata(t testing.TB) chat.Metadata {
	t.Helper()
	ms := r.named("metadata")
	if len(ms) != 1 {
		t.Fatalf("want exactly one metadata event, got %d in %s", len(ms), r.Body)
	}
	var m chat.Metadata
	if err := json.Unmarshal(ms[0].Data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func (r chatResponse) names() []string {
	var out []string
	for _, e := range r.Events {
		out = append(out, e.Name)
	}
	return out
}

func parseSSE(body string) []sseEvent {
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Name != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.Data = json.RawMessage(strings.TrimPrefix(line, "data: "))
		}
	}
	return out
}

// post sends a raw body with headers to path.
func (e *env) post(path, contentType, body string, headers map[string]string) chatResponse {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.server.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return e.send(req)
}

// send does the request and parses an SSE body into events.
func (e *env) send(req *http.Request) chatResponse {
	e.t.Helper()
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

func (e *env) chat(body map[string]any, headers map[string]string) chatResponse {
	e.t.Helper()
	raw, _ := json.Marshal(body)
	return e.post("/chat", "application/json", string(raw), headers)
}

func captureArgs(concepts ...map[string]any) map[string]any {
	return map[string]any{"concepts": concepts}
}

func vrtConcept() map[string]any {
	return map[string]any{"domain": "TAX", "kind": "VRT", "jurisdiction": "IE", "prefLabel": "Vehicle Registration Tax",
		"altLabels": []string{"VRT"}, "definition": "tax levied on registration of vehicles in Ireland"}
}

// export is what the export route returns for tenant-a's conversation.
func (e *env) export(conversationID string) conversation.Export {
	e.t.Helper()
	return e.exportAs(conversationID, "tenant-a")
}

func (e *env) exportAs(conversationID, tenant string) conversation.Export {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.server.URL+"/conversations/"+conversationID+"/export", nil)
	req.Header.Set("X-Tenant-Id", tenant)
	resp := e.send(req)
	var out conversation.Export
	if resp.Status != http.StatusOK {
		e.t.Fatalf("export %s: %d %s", conversationID, resp.Status, resp.Body)
	}
	if err := json.Unmarshal([]byte(resp.Body), &out); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// conversationIDs lists the tenant's conversations (of user-a) through the
// list route.
func (e *env) conversationIDs(tenant string) []string {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.server.URL+"/conversations?limit=100", nil)
	req.Header.Set("X-Tenant-Id", tenant)
	resp := e.send(req)
	var page struct{ Conversations []conversation.Conversation }
	if resp.Status != http.StatusOK {
		e.t.Fatalf("list: %d %s", resp.Status, resp.Body)
	}
	if err := json.Unmarshal([]byte(resp.Body), &page); err != nil {
		e.t.Fatal(err)
	}
	var ids []string
	for _, c := range page.Conversations {
		ids = append(ids, c.ID)
	}
	return ids
}

// storedRecords counts what the tenants hold: conversations, turns and
// contexts, as the export route shows them.
func (e *env) storedRecords(tenants ...string) int {
	e.t.Helper()
	n := 0
	for _, tenant := range tenants {
		for _, id := range e.conversationIDs(tenant) {
			x := e.exportAs(id, tenant)
			n += 1 + len(x.Turns)
			if x.Context != nil {
				n++
			}
		}
	}
	return n
}
