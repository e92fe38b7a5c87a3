package httpapi_test

// The OpenAPI document (api/openapi.yaml) is held to what the server does:
// every request and response of the HTTP tests that run through newEnv is
// validated against it with kin-openapi (request, status, headers, JSON
// body, and each SSE event's data against the schema its name has in
// x-sse-events or x-ui-message-chunks). A drift test compares the document
// with the routes table, and when the whole package runs, TestMain fails
// unless every route, event and chunk was seen at least once.

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"regintel/api"
	"regintel/shared/httpapi"
	"regintel/shared/llm/llmtest"
)

// contract is the loaded document and what the tests have shown of it.
type contract struct {
	doc    *openapi3.T
	router routers.Router

	mu   sync.Mutex
	seen map[string]bool // "GET /path", "event name", "chunk type"
}

var (
	contractOnce sync.Once
	theContract  *contract
	contractErr  error
)

func loadContract() (*contract, error) {
	contractOnce.Do(func() {
		raw, err := api.JSON()
		if err != nil {
			contractErr = err
			return
		}
		doc, err := openapi3.NewLoader().LoadFromData(raw)
		if err != nil {
			contractErr = err
			return
		}
		doc.Servers = nil // match paths on any host the tests listen on
		router, err := legacy.NewRouter(doc)
		if err != nil {
			contractErr = err
			return
		}
		theContract = &contract{doc: doc, router: router, seen: map[string]bool{}}
	})
	return theContract, contractErr
}

func mustContract(t testing.TB) *contract {
	t.Helper()
	c, err := loadContract()
	if err != nil {
		t.Fatalf("openapi document: %v", err)
	}
	return c
}

func (c *contract) see(key string) {
	c.mu.Lock()
	c.seen[key] = true
	c.mu.Unlock()
}

// recordingWriter keeps a copy of the response while passing every write
// and flush through, so streams stay incremental.
type recordingWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *recordingWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// checkedByContract wraps the API so every exchange is validated against
// the document; a mismatch fails t.
func checkedByContract(t testing.TB, next http.Handler) http.Handler {
	c := mustContract(t)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The body is copied as the handler reads it, not before: a slow
		// body must reach the handler's read deadline. The handler gets a
		// copy of the request, so the server still sees its own body.
		var raw bytes.Buffer
		served := *r
		served.Body = readCloser{io.TeeReader(r.Body, &raw), r.Body}
		rec := &recordingWriter{ResponseWriter: w}
		next.ServeHTTP(rec, &served)
		if rec.status < 400 {
			_, _ = io.Copy(&raw, r.Body) // an accepted request is validated whole
		}
		r = r.Clone(context.Background())
		r.Body = io.NopCloser(bytes.NewReader(raw.Bytes()))
		for _, problem := range c.check(r, rec.status, rec.Header(), rec.body.Bytes()) {
			t.Errorf("contract: %s %s → %d: %s", r.Method, r.URL.Path, rec.status, problem)
		}
	})
}

type readCloser struct {
	io.Reader
	io.Closer
}

// check validates one exchange and returns what disagrees with the document.
func (c *contract) check(r *http.Request, status int, header http.Header, body []byte) []string {
	if r.Method == http.MethodOptions {
		return nil // a CORS preflight, answered from the routes table
	}
	lookup := r.Clone(context.Background())
	if lookup.Method == http.MethodHead {
		lookup.Method = http.MethodGet
	}
	route, params, err := c.router.FindRoute(lookup)
	if err != nil || status == http.StatusMethodNotAllowed {
		// Not an operation: the server must say so as a JSON 404 or 405.
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
			return []string{"undocumented operation answered " + fmt.Sprint(status)}
		}
		return c.checkSchema("Error", body)
	}
	c.see(route.Method + " " + route.Path)
	opts := &openapi3filter.Options{
		AuthenticationFunc:      openapi3filter.NoopAuthenticationFunc,
		IncludeResponseStatus:   true,
		MultiError:              true,
		SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.EnableJSONSchema2020()},
	}
	reqInput := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: opts}
	var problems []string
	if err := openapi3filter.ValidateRequest(context.Background(), reqInput); err != nil && status < 400 {
		problems = append(problems, "a request the document refuses was accepted: "+err.Error())
	}
	mediaType := strings.TrimSpace(strings.Split(header.Get("Content-Type"), ";")[0])
	respOpts := *opts
	respOpts.ExcludeResponseBody = mediaType != "application/json"
	err = openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: reqInput, Status: status, Header: header,
		Body: io.NopCloser(bytes.NewReader(body)), Options: &respOpts,
	})
	if err != nil {
		problems = append(problems, err.Error())
	}
	if mediaType == "text/event-stream" && status == http.StatusOK {
		problems = append(problems, c.checkStream(route, body)...)
	}
	return problems
}

// checkStream validates each frame's data: a named event against
// x-sse-events, a data-only frame (the UI message stream) against
// x-ui-message-chunks by its type.
func (c *contract) checkStream(route *routers.Route, body []byte) []string {
	media := route.Operation.Responses.Status(http.StatusOK).Value.Content.Get("text/event-stream")
	events := schemaRefs(media.Extensions["x-sse-events"])
	chunks := schemaRefs(media.Extensions["x-ui-message-chunks"])
	var problems []string
	for _, frame := range strings.Split(string(body), "\n\n") {
		name, data := "", ""
		for _, line := range strings.Split(frame, "\n") {
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
			} else if v, ok := strings.CutPrefix(line, "data: "); ok {
				data = v
			}
		}
		switch {
		case data == "" || data == "[DONE]":
			continue
		case name != "":
			schema, ok := events[name]
			if !ok {
				problems = append(problems, "undocumented event "+name)
				continue
			}
			c.see("event " + name)
			problems = append(problems, prefixed(name, c.checkSchema(schema, []byte(data)))...)
		default:
			var chunk struct{ Type string }
			_ = json.Unmarshal([]byte(data), &chunk)
			schema, ok := chunks[chunk.Type]
			if !ok {
				problems = append(problems, "undocumented UI stream chunk "+data)
				continue
			}
			c.see("chunk " + chunk.Type)
			problems = append(problems, prefixed(chunk.Type, c.checkSchema(schema, []byte(data)))...)
		}
	}
	return problems
}

// schemaRefs reads an x-sse-events style map: name → {$ref:
// "#/components/schemas/Name"}, as schema names.
func schemaRefs(ext any) map[string]string {
	out := map[string]string{}
	m, _ := ext.(map[string]any)
	for name, v := range m {
		ref, _ := v.(map[string]any)["$ref"].(string)
		out[name] = strings.TrimPrefix(ref, "#/components/schemas/")
	}
	return out
}

func (c *contract) checkSchema(name string, data []byte) []string {
	ref := c.doc.Components.Schemas[name]
	if ref == nil || ref.Value == nil {
		return []string{"no schema " + name}
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return []string{"not JSON: " + string(data)}
	}
	if err := ref.Value.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors()); err != nil {
		return []string{name + ": " + err.Error()}
	}
	return nil
}

func prefixed(prefix string, problems []string) []string {
	for i, p := range problems {
		problems[i] = prefix + ": " + p
	}
	return problems
}

// expected lists what the tests must show: every operation, event and
// chunk, except those only planned or retiring (x-stream-change).
func (c *contract) expected() []string {
	var out []string
	for path, item := range c.doc.Paths.Map() {
		for method, op := range item.Operations() {
			// The compatibility surface has its own contract test (httpapi/compat).
			if _, compat := op.Extensions["x-compat"]; !compat {
				out = append(out, method+" "+path)
			}
		}
	}
	stream := c.doc.Components.Responses["ChatStream"].Value.Content.Get("text/event-stream")
	for _, kind := range []struct{ prefix, ext string }{{"event ", "x-sse-events"}, {"chunk ", "x-ui-message-chunks"}} {
		for name, schema := range schemaRefs(stream.Extensions[kind.ext]) {
			if _, changing := c.doc.Components.Schemas[schema].Value.Extensions["x-stream-change"]; changing {
				continue
			}
			out = append(out, kind.prefix+name)
		}
	}
	out = append(out, "event graph_patch")
	sort.Strings(out)
	return out
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && !testing.Short() {
		if c, err := loadContract(); err == nil {
			var unseen []string
			for _, key := range c.expected() {
				if !c.seen[key] {
					unseen = append(unseen, key)
				}
			}
			if len(unseen) > 0 {
				fmt.Fprintf(os.Stderr, "contract coverage: no test exercised %s\n", strings.Join(unseen, ", "))
				code = 1
			}
		}
	}
	os.Exit(code)
}

// The document and the routes table name the same operations, with the
// route's name as operationId, security exactly on Auth routes, and an
// event stream exactly on Streams routes.
func TestOpenAPIDocumentMatchesRoutesTable(t *testing.T) {
	c := mustContract(t)
	documented := map[string]*openapi3.Operation{}
	for path, item := range c.doc.Paths.Map() {
		for method, op := range item.Operations() {
			documented[method+" "+path] = op
		}
	}
	routes := append(httpapi.Routes(), httpapi.DemoRoutes()...)
	routes = append(routes, httpapi.CompatRoutes()...)
	for _, rt := range routes {
		key := rt.Method + " " + strings.TrimSuffix(rt.Pattern, "{$}")
		if key == rt.Method+" " {
			key += "/"
		}
		op, ok := documented[key]
		if !ok {
			t.Errorf("route %s (%s) is not in the document", key, rt.Name)
			continue
		}
		delete(documented, key)
		if op.OperationID != rt.Name {
			t.Errorf("%s: operationId %q, route name %q", key, op.OperationID, rt.Name)
		}
		public := op.Security != nil && len(*op.Security) == 0
		if public == rt.Auth {
			t.Errorf("%s: document public=%v, route Auth=%v", key, public, rt.Auth)
		}
		// A route the route timeout would cut mid-stream must be marked Streams.
		var eventStream bool
		if ok := op.Responses.Status(http.StatusOK); ok != nil && ok.Value != nil {
			eventStream = ok.Value.Content.Get("text/event-stream") != nil
		}
		if eventStream != rt.Streams {
			t.Errorf("%s: document answers text/event-stream=%v, route Streams=%v", key, eventStream, rt.Streams)
		}
		for _, h := range rt.RequestHeaders {
			if op.Parameters.GetByInAndName("header", h) == nil && !slices.ContainsFunc(op.Parameters, func(p *openapi3.ParameterRef) bool {
				return p.Value != nil && p.Value.In == "header" && strings.EqualFold(p.Value.Name, h)
			}) {
				t.Errorf("%s reads header %s, which the document does not list", key, h)
			}
		}
	}
	for key := range documented {
		t.Errorf("the document has %s, which no route serves", key)
	}
}

func TestOpenAPIDocumentAndDemoPageAreServed(t *testing.T) {
	e := newEnv(t, envOptions{demoPage: true})
	resp := e.do(http.MethodGet, "/openapi.json", nil)
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.Unmarshal([]byte(resp.Body), &doc); resp.Status != http.StatusOK || err != nil || doc.OpenAPI != "3.1.0" || doc.Paths["/chat"] == nil {
		t.Fatalf("GET /openapi.json: %d %.200s", resp.Status, resp.Body)
	}
	page := e.do(http.MethodGet, "/", nil)
	if page.Status != http.StatusOK || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") || !strings.Contains(page.Body, "assets/app.js") {
		t.Fatalf("GET /: %d %s %.200s", page.Status, page.Header.Get("Content-Type"), page.Body)
	}
	for _, asset := range []string{"app.js", "style.css"} {
		if r := e.do(http.MethodGet, "/assets/"+asset, nil); r.Status != http.StatusOK || len(r.Body) < 500 {
			t.Fatalf("GET /assets/%s: %d", asset, r.Status)
		}
	}
	if r := e.do(http.MethodGet, "/assets/secret.go", nil); r.Status != http.StatusNotFound {
		t.Fatalf("GET /assets/secret.go: %d", r.Status)
	}
	if r := e.do(http.MethodGet, "/healthz", nil); r.Status != http.StatusOK {
		t.Fatalf("GET /healthz: %d", r.Status)
	}
}

// Without DEMO_PAGE (as on Lambda by default) GET / is the JSON 404 of any
// unknown path.
func TestDemoPageIsOffUnlessEnabled(t *testing.T) {
	e := newEnv(t, envOptions{})
	if r := e.do(http.MethodGet, "/", nil); r.Status != http.StatusNotFound || errorOf(t, r) != "not_found" {
		t.Fatalf("GET / without the demo page: %d %s", r.Status, r.Body)
	}
}

// A response the document does not allow is caught: the checker is not a
// rubber stamp.
func TestContractCheckerCatchesAResponseOffTheDocument(t *testing.T) {
	c := mustContract(t)
	req, _ := http.NewRequest(http.MethodGet, "http://api.test/conversations?limit=5", nil)
	h := http.Header{"Content-Type": {"application/json"}}
	if p := c.check(req, http.StatusOK, h, []byte(`{"conversations":[{"id":1}],"nextCursor":null}`)); len(p) == 0 {
		t.Fatal("a conversation without its fields passed")
	}
	if p := c.check(req, http.StatusTeapot, h, []byte(`{"error":{"code":"x","message":"y"}}`)); len(p) == 0 {
		t.Fatal("an undocumented status passed")
	}
	chat, _ := http.NewRequest(http.MethodPost, "http://api.test/chat", strings.NewReader(`{"message":"hi"}`))
	chat.Header.Set("Content-Type", "application/json")
	sse := http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}}
	if p := c.check(chat, http.StatusOK, sse, []byte("event: message\ndata: {\"txt\":\"hi\"}\n\n")); len(p) == 0 {
		t.Fatal("a message event without text passed")
	}
	if p := c.check(chat, http.StatusOK, sse, []byte("event: surprise\ndata: {}\n\n")); len(p) == 0 {
		t.Fatal("an undocumented event passed")
	}
	if p := c.check(chat, http.StatusOK, sse, []byte("data: {\"type\":\"text-delta\",\"id\":\"t\"}\n\n")); len(p) == 0 {
		t.Fatal("a text-delta chunk without delta passed")
	}
	if p := c.check(chat, http.StatusOK, sse, []byte("data: {\"type\":\"start\",\"messageId\":\"m\"}\n\n")); len(p) == 0 {
		t.Fatal("a start chunk without the conversation passed")
	}
	if p := c.check(chat, http.StatusOK, sse, []byte("data: {\"type\":\"finish\",\"finishReason\":\"context-required\"}\n\n")); len(p) == 0 {
		t.Fatal("a finish reason the AI SDK does not know passed")
	}
	if p := c.check(chat, http.StatusOK, sse, []byte("data: {\"type\":\"data-metadata\",\"data\":{}}\n\n")); len(p) == 0 {
		t.Fatal("the retired data-metadata chunk passed")
	}
	meta := `{"conversationId":null,"turnNumber":null,"referencedNodes":null,"jurisdictions":null,"uncertaintyLevel":"low",` +
		`"disclaimerKey":"k","agentId":"a","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2},"provider":"p","model":"m",` +
		`"latencyMs":1,"stateless":true,"queryComposition":"chat","warnings":null,"modelCalls":1,"concepts":null,"citations":null`
	if p := c.check(chat, http.StatusOK, sse, []byte("event: metadata\ndata: "+meta+"}\n\n")); len(p) != 0 {
		t.Fatalf("complete metadata refused: %v", p)
	}
	if p := c.check(chat, http.StatusOK, sse, []byte("event: metadata\ndata: "+meta+`,"surprise":1}`+"\n\n")); len(p) == 0 {
		t.Fatal("metadata with an undocumented field passed")
	}
}

// The UI message stream's less common chunks, each from a real turn: a
// warning, a context request, and a model failure.
func TestUIMessageStreamWarningContextRequestAndError(t *testing.T) {
	e := newEnv(t, envOptions{})
	ui := map[string]string{"X-Stream-Protocol": httpapi.UIMessageStreamProtocol}
	chunks := func(resp chatResponse) []string {
		var types []string
		for _, frame := range strings.Split(resp.Body, "\n\n") {
			var chunk struct{ Type string }
			if json.Unmarshal([]byte(strings.TrimPrefix(frame, "data: ")), &chunk) == nil && chunk.Type != "" {
				types = append(types, chunk.Type)
			}
		}
		return types
	}

	e.llm.Enqueue(llmtest.Script{Steps: []llmtest.Step{llmtest.ToolCall("capture_concepts", "{not json", 2)}}, llmtest.TextScript("Answer."))
	if got := chunks(e.chat(map[string]any{"message": "What is VRT?"}, ui)); !slices.Contains(got, "data-warning") {
		t.Errorf("malformed tool output: chunks %v, want a data-warning", got)
	}

	e.llm.Enqueue(llmtest.Script{Steps: llmtest.Steps(llmtest.Words("I need details."), llmtest.ToolCallJSON("request_context", requestContextArgs(), 2))})
	if got := chunks(e.chat(map[string]any{"message": deferredQuestion}, ui)); !slices.Contains(got, "data-context-request") {
		t.Errorf("context request: chunks %v, want a data-context-request", got)
	}

	e.llm.Enqueue(llmtest.Script{Steps: llmtest.Steps(llmtest.Words("Partial"), llmtest.StreamError("server_error", "boom"))})
	got := chunks(e.chat(map[string]any{"message": "hi"}, ui))
	if !slices.Contains(got, "error") || got[len(got)-1] != "finish" {
		t.Errorf("model failure: chunks %v, want error then finish", got)
	}
}
