package httpapi_test

// The OpenAPI document (api/openapi.yaml) is held to what the server does:
// every request and response of the HTTP tests that run through newEnv is
// validated against it with kin-openapi (request, status, headers, JSON
// body, and each SSE event's data against the contentSchema its name has
// in the stream's itemSchema). A drift test compares the document
// with the routes table, and when the whole package runs, TestMain fails
// unless every route, event and chunk was seen at least once.

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"regintel/api/apitest"
	"regintel/shared/httpapi"
	"regintel/shared/llm/llmtest"
)

var (
	contractOnce sync.Once
	theContract  *apitest.Contract
	contractErr  error
)

// loadContract loads the document once, so TestMain can see what every
// test showed of it.
func loadContract() (*apitest.Contract, error) {
	contractOnce.Do(func() { theContract, contractErr = apitest.Load() })
	return theContract, contractErr
}

func mustContract(t testing.TB) *apitest.Contract {
	t.Helper()
	c, err := loadContract()
	if err != nil {
		t.Fatalf("openapi document: %v", err)
	}
	return c
}

// checkedByContract wraps the API so every exchange is validated against
// the document; a mismatch fails t.
func checkedByContract(t testing.TB, next http.Handler) http.Handler {
	return mustContract(t).Checked(t, next)
}

// expected lists what the tests must show: every operation, event and
// chunk, except those only planned or retiring (x-stream-change).
func expected(c *apitest.Contract) []string {
	var out []string
	for path, item := range c.Doc.Paths.Map() {
		for method, op := range item.Operations() {
			// The compatibility surface has its own contract test (httpapi/compat).
			if _, compat := op.Extensions["x-compat"]; !compat {
				out = append(out, method+" "+path)
			}
		}
	}
	stream := c.Doc.Components.Responses["ChatStream"].Value.Content.Get("text/event-stream")
	kinds := []struct {
		prefix  string
		schemas map[string]*openapi3.SchemaRef
	}{{"event ", apitest.EventSchemas(stream)}, {"chunk ", c.ChunkTypes()}}
	for _, kind := range kinds {
		for name, schema := range kind.schemas {
			if _, changing := schema.Value.Extensions["x-stream-change"]; changing {
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
			for _, key := range expected(c) {
				if !c.Seen(key) {
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
	for path, item := range c.Doc.Paths.Map() {
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
	if err := json.Unmarshal([]byte(resp.Body), &doc); resp.Status != http.StatusOK || err != nil || doc.OpenAPI != "3.2.0" || doc.Paths["/chat"] == nil {
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
	if p := c.Check(req, http.StatusOK, h, []byte(`{"conversations":[{"id":1}],"nextCursor":null}`)); len(p) == 0 {
		t.Fatal("a conversation without its fields passed")
	}
	if p := c.Check(req, http.StatusTeapot, h, []byte(`{"error":{"code":"x","message":"y"}}`)); len(p) == 0 {
		t.Fatal("an undocumented status passed")
	}
	chat, _ := http.NewRequest(http.MethodPost, "http://api.test/chat", strings.NewReader(`{"message":"hi"}`))
	chat.Header.Set("Content-Type", "application/json")
	sse := http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}}
	if p := c.Check(chat, http.StatusOK, sse, []byte("event: message\ndata: {\"txt\":\"hi\"}\n\n")); len(p) == 0 {
		t.Fatal("a message event without text passed")
	}
	if p := c.Check(chat, http.StatusOK, sse, []byte("event: surprise\ndata: {}\n\n")); len(p) == 0 {
		t.Fatal("an undocumented event passed")
	}
	if p := c.Check(chat, http.StatusOK, sse, []byte("data: {\"type\":\"text-delta\",\"id\":\"t\"}\n\n")); len(p) == 0 {
		t.Fatal("a text-delta chunk without delta passed")
	}
	if p := c.Check(chat, http.StatusOK, sse, []byte("data: {\"type\":\"start\",\"messageId\":\"m\"}\n\n")); len(p) == 0 {
		t.Fatal("a start chunk without the conversation passed")
	}
	if p := c.Check(chat, http.StatusOK, sse, []byte("data: {\"type\":\"finish\",\"finishReason\":\"context-required\"}\n\n")); len(p) == 0 {
		t.Fatal("a finish reason the AI SDK does not know passed")
	}
	if p := c.Check(chat, http.StatusOK, sse, []byte("data: {\"type\":\"data-metadata\",\"data\":{}}\n\n")); len(p) == 0 {
		t.Fatal("the retired data-metadata chunk passed")
	}
	meta := `{"conversationId":null,"turnNumber":null,"referencedNodes":null,"jurisdictions":null,"uncertaintyLevel":"low",` +
		`"disclaimerKey":"k","agentId":"a","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2,"cachedInputTokens":0},"provider":"p","model":"m",` +
		`"latencyMs":1,"stateless":true,"queryComposition":"chat","warnings":null,"modelCalls":1,"concepts":null,"citations":null`
	if p := c.Check(chat, http.StatusOK, sse, []byte("event: metadata\ndata: "+meta+"}\n\n")); len(p) != 0 {
		t.Fatalf("complete metadata refused: %v", p)
	}
	if p := c.Check(chat, http.StatusOK, sse, []byte("event: metadata\ndata: "+meta+`,"surprise":1}`+"\n\n")); len(p) == 0 {
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
