package httpapi_test

// The OpenAPI document (api/openapi.yaml) is held to what the server does:
// every request and response of the HTTP tests that run through newEnv is
// validated against it by the contract checker (api/contract, through
// api/apitest), and when the whole package runs, TestMain fails unless
// every route, event and chunk was seen at least once. The checks that
// read the document itself (its drift from the routes table, the checker
// catching what is off it) are in api/contract.

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"regintel/api/apitest"
	"regintel/shared/httpapi"
	"regintel/shared/llm/llmtest"
)

// checkedByContract wraps the API so every exchange is validated against
// the document; a mismatch fails t.
func checkedByContract(t testing.TB, next http.Handler) http.Handler {
	return apitest.Checked(t, next)
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && !testing.Short() {
		if c, err := apitest.Start(); err == nil {
			unseen, err := c.Unseen()
			if err != nil {
				fmt.Fprintf(os.Stderr, "contract coverage: %v\n", err)
				code = 1
			} else if len(unseen) > 0 {
				fmt.Fprintf(os.Stderr, "contract coverage: no test exercised %s\n", strings.Join(unseen, ", "))
				code = 1
			}
		}
	}
	os.Exit(code)
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
	rendition := e.do(http.MethodGet, "/openapi-3.1.json", nil)
	if err := json.Unmarshal([]byte(rendition.Body), &doc); rendition.Status != http.StatusOK || err != nil || doc.OpenAPI != "3.1.1" || doc.Paths["/chat"] == nil {
		t.Fatalf("GET /openapi-3.1.json: %d %.200s", rendition.Status, rendition.Body)
	}
	page := e.do(http.MethodGet, "/", nil)
	if page.Status != http.StatusOK || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") || !strings.Contains(page.Body, "assets/app.js") {
		t.Fatalf("GET /: %d %s %.200s", page.Status, page.Header.Get("Content-Type"), page.Body)
	}
	for _, asset := range []string{"app.js", "style.css", "marked.umd.js", "purify.min.js"} {
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
