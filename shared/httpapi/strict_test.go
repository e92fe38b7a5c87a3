package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"regintel/shared/llm/llmtest"
)

// strictProbe is one body a route must refuse with a 400 naming field.
type strictProbe struct {
	name, method, path, body, field string
}

// TestBodiesAreDecodedStrictly re-runs the probes that found control
// characters saved silently, case-insensitive field names honoured and
// duplicate keys accepted: every route with a body refuses them with a 400
// naming the field, before the model is called or anything is stored.
func TestBodiesAreDecodedStrictly(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		e := newEnv(t, envOptions{postgres: postgres})
		e.llm.Enqueue(llmtest.TextScript("VAT is charged on supplies."))
		first := e.chat(map[string]any{"message": "What is VAT?"}, nil)
		convID := first.metadata(t).ConversationID
		if first.Status != http.StatusOK || convID == nil {
			t.Fatalf("first turn: %d %s", first.Status, first.Body)
		}
		probes := strictProbes(*convID)
		before := e.export(*convID)
		calls := len(e.llm.Requests())
		for _, p := range probes {
			t.Run(p.name, func(t *testing.T) {
				r := e.raw(p.method, p.path, p.body)
				if r.Status != http.StatusBadRequest {
					t.Fatalf("%s %s %s: %d %s", p.method, p.path, p.body, r.Status, r.Body)
				}
				var body struct {
					Error struct{ Code, Message string }
				}
				if err := json.Unmarshal([]byte(r.Body), &body); err != nil || body.Error.Code != "invalid_request" ||
					!strings.Contains(body.Error.Message, "field "+p.field+":") {
					t.Fatalf("want an invalid_request naming %s, got %s", p.field, r.Body)
				}
			})
		}
		if n := len(e.llm.Requests()); n != calls {
			t.Errorf("the model was called %d times for refused bodies", n-calls)
		}
		if ids := e.conversationIDs("tenant-a"); len(ids) != 1 {
			t.Errorf("conversations after the probes: %v", ids)
		}
		after := e.export(*convID)
		if len(after.Turns) != len(before.Turns) || after.Conversation.Title != before.Conversation.Title {
			t.Errorf("the stored conversation changed: %d turns, title %q", len(after.Turns), after.Conversation.Title)
		}
	})
}

// strictProbes are the bodies every route must refuse, each with the
// field it must name; convID is a conversation of tenant-a.
func strictProbes(convID string) []strictProbe {
	conv := "/conversations/" + convID
	supply := conv + "/context-requests/00000000-0000-4000-8000-000000000000"
	ui := "/chat?protocol=ui-message-stream"
	return []strictProbe{
		{"nul in message", "POST", "/chat", `{"message":"a\u0000b"}`, "message"},
		{"nul in a stored turn", "POST", "/chat", `{"conversationId":"` + convID + `","message":"again\u0000"}`, "message"},
		{"escape in jurisdictions", "POST", "/chat", `{"message":"hi","profile":{"jurisdictions":["IE","\u001b"]}}`, "profile.jurisdictions[1]"},
		{"nul in personaType", "POST", "/chat", `{"message":"hi","profile":{"personaType":"SME\u0000"}}`, "profile.personaType"},
		{"nul in supplied content", "POST", "/chat", `{"message":"hi","contextSupply":{"items":[{"key":"p60","content":"\u0000"}]}}`, "contextSupply.items[0].content"},
		{"nul in supplied key", "POST", "/chat", `{"message":"hi","contextSupply":{"items":[{"key":"p\u000060","content":"x"}]}}`, "contextSupply.items[0].key"},
		{"nul in history", "POST", "/chat", `{"message":"hi","stateless":true,"messages":[{"role":"user","content":"\u0007"}]}`, "messages[0].content"},
		{"upper-case field", "POST", "/chat", `{"message":"hi","STATELESS":true}`, "STATELESS"},
		{"mixed-case nested field", "POST", "/chat", `{"message":"hi","profile":{"Jurisdictions":["IE"]}}`, "profile.Jurisdictions"},
		{"duplicate message", "POST", "/chat", `{"message":"hi","message":"other"}`, "message"},
		{"duplicate stateless", "POST", "/chat", `{"message":"hi","stateless":false,"stateless":true}`, "stateless"},
		{"useChat nul in a part", "POST", ui, `{"id":"x","messages":[{"role":"user","parts":[{"type":"text","text":"a\u0000"}]}]}`, "messages[0].parts[0].text"},
		{"useChat upper-case part field", "POST", ui, `{"messages":[{"role":"user","parts":[{"type":"text","Text":"hi"}]}]}`, "messages[0].parts[0].Text"},
		{"useChat duplicate role", "POST", ui, `{"messages":[{"role":"assistant","role":"user","parts":[]}]}`, "messages[0].role"},
		{"supply nul in content", "POST", supply, `{"items":[{"key":"p60","content":"x\u0000"}]}`, "items[0].content"},
		{"supply duplicate items", "POST", supply, `{"items":[],"items":[{"key":"p60","content":"x"}]}`, "items"},
		{"supply upper-case field", "POST", supply, `{"Items":[{"key":"p60","content":"x"}]}`, "Items"},
		{"title with nul", "PATCH", conv, `{"title":"Tax\u0000"}`, "title"},
		{"duplicate title", "PATCH", conv, `{"title":"One","title":"Two"}`, "title"},
		{"duplicate archived", "PATCH", conv, `{"archived":false,"archived":true}`, "archived"},
		{"profile upper-case field", "PATCH", conv, `{"profile":{"PersonaType":"SME","jurisdictions":["IE"]}}`, "profile.PersonaType"},
		{"profile nul in jurisdictions", "PATCH", conv, `{"profile":{"jurisdictions":["IE","\u0000"]}}`, "profile.jurisdictions[1]"},
		{"profile duplicate personaType", "PATCH", conv, `{"profile":{"personaType":"SME","personaType":"x"}}`, "profile.personaType"},
		{"upper-case retry", "POST", "/chat", `{"conversationId":"` + convID + `","Retry":true}`, "Retry"},
	}
}

// raw sends body as application/json exactly as written.
func (e *env) raw(method, path, body string) chatResponse {
	e.t.Helper()
	req, err := http.NewRequest(method, e.server.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return e.send(req)
}
