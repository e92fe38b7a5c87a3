package contract_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"regintel/api/contract"
	"regintel/shared/httpapi"
)

func TestDocumentIsValidOpenAPI32(t *testing.T) {
	doc := contract.MustLoad(t).Doc
	if !doc.IsOpenAPI32OrLater() {
		t.Fatalf("openapi %q, want 3.2", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A data-only frame is held to the schema of the itemSchema's "message"
// branch, and a named event the itemSchema lacks is refused.
func TestUnnamedFramesAreCheckedAgainstTheirSchema(t *testing.T) {
	c := contract.MustLoad(t)
	req := httptest.NewRequest(http.MethodGet, "http://api.test/api/graph/stream", nil)
	sse := http.Header{"Content-Type": {"text/event-stream"}}
	if p := c.Check(req, http.StatusOK, sse, []byte("id: 1\ndata: {\"type\":\"graph_patch\"}\n\n")); len(p) == 0 {
		t.Fatal("a graph patch without its fields passed")
	}
	if p := c.Check(req, http.StatusOK, sse, []byte("event: surprise\ndata: {}\n\n")); len(p) == 0 {
		t.Fatal("an undocumented named event passed")
	}
	if !c.Seen("GET /api/graph/stream") {
		t.Fatal("the operation checked was not recorded as seen")
	}
}

// The chat stream's itemSchema names every event, and the UI chunks are
// read by their type.
func TestEventSchemasReadTheItemSchema(t *testing.T) {
	c := contract.MustLoad(t)
	stream := c.Doc.Components.Responses["ChatStream"].Value.Content.Get("text/event-stream")
	events := contract.EventSchemas(stream)
	for _, name := range []string{"start", "message", "warning", "disclaimer", "context_request", "metadata", "error", "done"} {
		if events[name] == nil {
			t.Errorf("no schema for event %s", name)
		}
	}
	chunks := c.ChunkTypes()
	for _, name := range []string{"start", "text-start", "text-delta", "text-end", "error", "finish"} {
		if chunks[name] == nil {
			t.Errorf("no schema for chunk %s", name)
		}
	}
	req := httptest.NewRequest(http.MethodPost, "http://api.test/chat", nil)
	sse := http.Header{"Content-Type": {"text/event-stream"}}
	if p := c.Check(req, http.StatusOK, sse, []byte("event: error\ndata: {\"message\":\"no code\"}\n\n")); len(p) == 0 {
		t.Error("an error event without its code passed")
	}
}

// The document and the routes table name the same operations, with the
// route's name as operationId, security exactly on Auth routes, and an
// event stream exactly on Streams routes.
func TestOpenAPIDocumentMatchesRoutesTable(t *testing.T) {
	c := contract.MustLoad(t)
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

// A response the document does not allow is caught: the checker is not a
// rubber stamp.
func TestContractCheckerCatchesAResponseOffTheDocument(t *testing.T) {
	c := contract.MustLoad(t)
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
