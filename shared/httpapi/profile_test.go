package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"regintel/shared/llm/llmtest"
)

// The profile is remembered with the conversation on the turn that sends
// it; later turns use it, PATCH replaces it, and bad profiles are refused
// with a 400 that names the field.
func TestProfileIsRememberedAndPatchable(t *testing.T) {
	forEachStore(t, testProfileIsRemembered)
}

func testProfileIsRemembered(t *testing.T, postgres bool) {
	e := newEnv(t, envOptions{postgres: postgres})
	e.llm.SetDefault(llmtest.TextScript("Answer."))
	first := e.chat(map[string]any{"message": "What VAT applies to restaurant meals?", "profile": map[string]any{"personaType": "restaurant owner", "jurisdictions": []string{"IE"}}}, nil)
	if first.Status != http.StatusOK {
		t.Fatalf("turn 1: %d %s", first.Status, first.Body)
	}
	convID := *first.metadata(t).ConversationID
	second := e.chat(map[string]any{"conversationId": convID, "message": "And for takeaway coffee?"}, nil)
	m := second.metadata(t)
	last, _ := e.llm.LastRequest()
	// A persona in the user's own words is fenced data, never instructions.
	if len(m.Jurisdictions) == 0 || m.Jurisdictions[0] != "IE" || !strings.Contains(last.System, "The user's jurisdictions: IE.") ||
		strings.Contains(last.System, "restaurant owner") || !strings.Contains(last.Messages[0].Content, "<user_profile>\nrestaurant owner\n</user_profile>") {
		t.Fatalf("turn 2 forgot the profile: jurisdictions %v\n%s\nfirst message %q", m.Jurisdictions, last.System, last.Messages[0].Content)
	}
	patched := e.do(http.MethodPatch, "/conversations/"+convID, map[string]any{"profile": map[string]any{"jurisdictions": []string{"UK"}}})
	if patched.Status != http.StatusOK || !strings.Contains(patched.Body, `"jurisdictions":["UK"]`) {
		t.Fatalf("PATCH profile: %d %s", patched.Status, patched.Body)
	}
	e.chat(map[string]any{"conversationId": convID, "message": "And there?"}, nil)
	if last, _ := e.llm.LastRequest(); !strings.Contains(last.System, "The user's jurisdictions: UK.") || strings.Contains(last.Messages[0].Content, "restaurant owner") {
		t.Fatalf("turn 3 does not use the patched profile:\n%s", last.System)
	}
	calls := len(e.llm.Requests())
	for name, body := range map[string]map[string]any{
		"personaType":       {"message": "q", "profile": map[string]any{"personaType": strings.Repeat("x", 201)}},
		"jurisdictions":     {"message": "q", "profile": map[string]any{"jurisdictions": []string{"IE", "UK", "FR", "DE", "ES", "IT", "NL", "BE", "AT", "PT", "SE"}}},
		"jurisdiction code": {"message": "q", "profile": map[string]any{"jurisdictions": []string{"ATLANTIS"}}},
	} {
		if r := e.chat(body, nil); r.Status != http.StatusBadRequest || !strings.Contains(r.Body, "profile") {
			t.Errorf("chat with a bad %s: %d %s", name, r.Status, r.Body)
		}
		if r := e.do(http.MethodPatch, "/conversations/"+convID, map[string]any{"profile": body["profile"]}); r.Status != http.StatusBadRequest {
			t.Errorf("PATCH with a bad %s: %d %s", name, r.Status, r.Body)
		}
	}
	if n := len(e.llm.Requests()); n != calls {
		t.Errorf("refused requests reached the model %d times", n-calls)
	}
}

// A profile has only the fields the document declares, on every route that
// takes one: an unknown field is a 400 on POST /chat, in either stream
// protocol, as on PATCH.
func TestProfileRefusesUnknownFields(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, path := range []string{"/chat", "/chat?protocol=ui-message-stream"} {
		body := `{"message":"hi","stateless":true,"profile":{"jurisdictions":["IE"],"income":42000}}`
		if r := e.raw("POST", path, body); r.Status != http.StatusBadRequest || !strings.Contains(r.Body, "profile") {
			t.Errorf("POST %s with an unknown profile field: %d %s", path, r.Status, r.Body)
		}
	}
	if n := len(e.llm.Requests()); n != 0 {
		t.Fatalf("the model was called %d times for refused bodies", n)
	}
}
