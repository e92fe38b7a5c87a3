package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"regintel/api"
	"regintel/shared/conversation"
	"regintel/shared/httpapi"
	"regintel/shared/llm/llmtest"
)

// The rules below are stated in the API document, so a client (or
// Schemathesis) that reads only the document sends bodies the server takes.

// A useChat body's question is the last user message with text: messages a
// client appends after it are ignored, whichever protocol answers.
func TestUseChatQuestionIsTheLastUserMessageWithText(t *testing.T) {
	e := newEnv(t, envOptions{})
	body := func(messages ...map[string]any) string {
		raw, _ := json.Marshal(map[string]any{"messages": messages})
		return string(raw)
	}
	user := func(text string) map[string]any {
		return map[string]any{"role": "user", "parts": []map[string]any{{"type": "text", "text": text}}}
	}
	assistant := map[string]any{"role": "assistant", "content": "An earlier answer."}
	fileOnly := map[string]any{"role": "user", "parts": []map[string]any{{"type": "file", "url": "data:,x"}, {"type": "text", "text": "  "}}}

	for _, path := range []string{"/chat", "/chat?protocol=ui-message-stream", "/chat?protocol=sse"} {
		e.llm.Enqueue(llmtest.TextScript("VAT is 23%."))
		resp := e.post(path, "application/json", body(user("What is the VAT rate?"), assistant, fileOnly), nil)
		if resp.Status != http.StatusOK {
			t.Fatalf("POST %s: %d %s", path, resp.Status, resp.Body)
		}
		last, _ := e.llm.LastRequest()
		if got := last.LastUserMessage(); got != "What is the VAT rate?" {
			t.Errorf("POST %s asked %q, want the last user message with text", path, got)
		}
		named := len(resp.named("done")) == 1
		if want := path == "/chat?protocol=sse"; named != want {
			t.Errorf("POST %s: named events %v, want %v (the protocol asked for, else the UI stream)", path, named, want)
		}
	}

	resp := e.post("/chat", "application/json", body(assistant, fileOnly), nil)
	if resp.Status != http.StatusBadRequest || !strings.Contains(resp.Body, "no user message has text") {
		t.Errorf("no question: %d %s, want 400 naming it", resp.Status, resp.Body)
	}
	// A body with a message is a ChatRequest on either protocol: messages
	// go with stateless only.
	raw, _ := json.Marshal(map[string]any{"message": "What is VAT?", "messages": []any{user("An old question")}})
	for _, path := range []string{"/chat", "/chat?protocol=ui-message-stream"} {
		if resp := e.post(path, "application/json", string(raw), nil); resp.Status != http.StatusBadRequest || !strings.Contains(resp.Body, "stateless") {
			t.Errorf("POST %s with message and messages: %d %s, want 400 naming stateless", path, resp.Status, resp.Body)
		}
	}
}

// A supplied key given twice is one item, the last given.
func TestSuppliedKeyGivenTwiceStoresTheLast(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		e := newEnv(t, envOptions{postgres: postgres})
		e.llm.Enqueue(llmtest.TextScript("Noted."))
		resp := e.chat(map[string]any{"message": "Which VAT rate applies to my work?", "contextSupply": map[string]any{"items": []map[string]any{
			{"key": "occupation", "content": "teacher"}, {"key": "occupation", "content": "carpenter"}}}}, nil)
		if resp.Status != http.StatusOK {
			t.Fatalf("supply: %d %s", resp.Status, resp.Body)
		}
		items := e.export(*resp.metadata(t).ConversationID).SuppliedItems
		if len(items) != 1 || items[0].Key != "occupation" || items[0].Content != "carpenter" {
			t.Fatalf("stored %+v, want the last item only", items)
		}
	})
}

// The document states the forms the server parses: the patterns are the
// server's own (a resume point's may also be empty, meaning none).
func TestDocumentStatesTheServersForms(t *testing.T) {
	raw, err := api.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Pattern string `json:"pattern"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	orNone := func(form string) string {
		return "^(" + strings.TrimSuffix(strings.TrimPrefix(form, "^"), "$") + ")?$"
	}
	for schema, want := range map[string]string{
		"PageCursor":    conversation.CursorPattern,
		"StreamEventID": orNone(httpapi.StreamEventIDPattern),
		"ChangeCursor":  orNone(httpapi.ChangeCursorPattern),
	} {
		if got := doc.Components.Schemas[schema].Pattern; got != want {
			t.Errorf("%s's pattern %q, want the server's %q", schema, got, want)
		}
	}
}
