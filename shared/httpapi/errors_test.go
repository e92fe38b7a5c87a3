package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"regintel/shared/chat"
	"regintel/shared/concept"
	"regintel/shared/graph"
	"regintel/shared/llm"
	"regintel/shared/llm/llmtest"
)

type failingGraph struct{}

func (failingGraph) GetNodesByIDs(context.Context, []string) ([]graph.Node, error) {
	return nil, errors.New("graph unreachable")
}

func (failingGraph) Ground(context.Context, graph.GroundingQuery) ([]graph.GroundedConcept, error) {
	return nil, errors.New("graph unreachable")
}

func (failingGraph) ResolveConcepts(context.Context, []concept.Concept) ([]string, error) {
	return nil, errors.New("graph unreachable")
}

// testGraph is what the harnesses read from a graph: the engine's reads and
// the node lookup.
type testGraph interface {
	graph.Reader
	chat.Graph
}

func TestBadInputsGetStatusAndJSONErrorAndWriteNothing(t *testing.T) {
	forEachStore(t, testBadInputs)
}

func testBadInputs(t *testing.T, postgres bool) {
	e := newEnv(t, envOptions{postgres: postgres})
	e.llm.SetDefault(llmtest.TextScript("should never be asked"))
	// A conversation of tenant B, which tenant A must not see.
	e.llm.Enqueue(llmtest.TextScript("hello"))
	other := e.chat(map[string]any{"message": "hi"}, map[string]string{"X-Tenant-Id": "tenant-b"})
	otherID := *other.metadata(t).ConversationID
	e.llm.Reset()

	// Conversations, turns and contexts of both tenants, as the API shows them.
	countRows := func() int { return e.storedRecords("tenant-a", "tenant-b") }
	before := countRows()

	for _, tc := range badChatInputs(otherID) {
		t.Run(tc.name, func(t *testing.T) { checkRefusedWithJSONError(t, e.server.URL, tc) })
	}
	if after := countRows(); after != before {
		t.Fatalf("bad requests wrote %d rows", after-before)
	}
	if n := len(e.llm.Requests()); n != 0 {
		t.Fatalf("bad requests reached the model %d times", n)
	}
}

// badChatInput is a request to /chat that must be refused.
type badChatInput struct {
	name, method, contentType, body string
	status                          int
	code                            string
}

// badChatInputs are the refused requests; otherID is a conversation of
// another tenant.
func badChatInputs(otherID string) []badChatInput {
	return []badChatInput{
		{"malformed json", "POST", "application/json", `{"message": "hi"`, 400, "malformed_json"},
		{"missing message", "POST", "application/json", `{}`, 400, "invalid_request"},
		{"empty message", "POST", "application/json", `{"message": "   "}`, 400, "invalid_request"},
		{"message too long", "POST", "application/json", `{"message": "` + strings.Repeat("a", 32001) + `"}`, 400, "invalid_request"},
		{"wrong type", "POST", "application/json", `{"message": 42}`, 400, "malformed_json"},
		{"bad conversation id", "POST", "application/json", `{"message": "hi", "conversationId": "nope"}`, 400, "invalid_request"},
		{"other tenant's conversation", "POST", "application/json", `{"message": "hi", "conversationId": "` + otherID + `"}`, 404, "conversation_not_found"},
		{"unknown conversation", "POST", "application/json", `{"message": "hi", "conversationId": "6f0e1a4c-1111-4c4c-8888-123456789abc"}`, 404, "conversation_not_found"},
		{"body too large", "POST", "application/json", `{"message": "hi", "pad": "` + strings.Repeat("x", 300<<10) + `"}`, 413, "body_too_large"},
		// A text/plain or unlabelled body is read as JSON (fetch's label for a
		// string body): a form encoding in it is malformed JSON.
		{"not json", "POST", "text/plain", `message=hi`, 400, "malformed_json"},
		{"form encoded", "POST", "application/x-www-form-urlencoded", `message=hi`, 415, "unsupported_media_type"},
		{"html", "POST", "text/html", `{"message": "hi"}`, 415, "unsupported_media_type"},
		{"wrong method", "GET", "", ``, 405, "method_not_allowed"},
		{"history without stateless", "POST", "application/json", `{"message": "hi", "messages": [{"role": "user", "content": "x"}]}`, 400, "invalid_request"},
	}
}

// checkRefusedWithJSONError sends tc to /chat and checks its status and
// JSON error body.
func checkRefusedWithJSONError(t *testing.T, serverURL string, tc badChatInput) {
	t.Helper()
	req, _ := http.NewRequest(tc.method, serverURL+"/chat", strings.NewReader(tc.body))
	if tc.contentType != "" {
		req.Header.Set("Content-Type", tc.contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Error struct{ Code, Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("error body is not JSON: %v", err)
	}
	if resp.StatusCode != tc.status || body.Error.Code != tc.code || body.Error.Message == "" {
		t.Fatalf("got %d %+v, want %d %s", resp.StatusCode, body.Error, tc.status, tc.code)
	}
	if resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("content type %q", resp.Header.Get("Content-Type"))
	}
}

func TestStatelessModeStoresNothingAndUsesClientHistory(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.llm.Enqueue(llmtest.TextScript("Stateless answer."))
	resp := e.chat(map[string]any{"message": "and now?", "stateless": true,
		"messages": []map[string]string{{"role": "user", "content": "earlier q"}, {"role": "assistant", "content": "earlier a"}}}, nil)
	m := resp.metadata(t)
	if m.ConversationID != nil || m.TurnNumber != nil || !m.Stateless {
		t.Fatalf("stateless metadata: %+v", m)
	}
	// The client's history is data: one fenced user message, so the
	// client's "assistant" lines carry no assistant role.
	msgs := e.llm.Requests()[0].Messages
	if len(msgs) != 2 || msgs[0].Role != llm.RoleUser || !strings.Contains(msgs[0].Content, "<client_history>\nuser: earlier q\nassistant: earlier a\n</client_history>") {
		t.Fatalf("history sent = %+v", msgs)
	}
	if n := len(e.conversationIDs("tenant-a")); n != 0 {
		t.Fatalf("stateless turn stored %d conversations", n)
	}
}
