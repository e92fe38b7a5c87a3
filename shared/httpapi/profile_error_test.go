package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"regintel/shared/llm/llmtest"
)

// A refused profile's message names the field and the rule it broke, on
// POST /chat (a turn and a retry) and on PATCH /conversations/{id}.
func TestProfileErrorNamesFieldAndRule(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.llm.SetDefault(llmtest.TextScript("Answer."))
	first := e.chat(map[string]any{"message": "What is VAT?"}, nil)
	convID := first.Header.Get("X-Conversation-Id")
	for _, tc := range []struct {
		profile map[string]any
		field   string
		rule    string
	}{
		{map[string]any{"personaType": strings.Repeat("x", 201)}, "profile.personaType", "200 characters"},
		{map[string]any{"personaType": "owner\u0085"}, "profile.personaType", "control character"},
		{map[string]any{"jurisdictions": []string{"IE", "UK", "FR", "DE", "ES", "IT", "NL", "BE", "AT", "PT", "SE"}}, "profile.jurisdictions", "at most 10"},
		{map[string]any{"jurisdictions": []string{"IE", "ATLANTIS"}}, "profile.jurisdictions[1]", `"IE", "UK" or "EU"`},
	} {
		for name, r := range map[string]chatResponse{
			"chat":  e.chat(map[string]any{"message": "q", "profile": tc.profile}, nil),
			"retry": e.chat(map[string]any{"conversationId": convID, "retry": true, "profile": tc.profile}, nil),
			"patch": e.do(http.MethodPatch, "/conversations/"+convID, map[string]any{"profile": tc.profile}),
		} {
			var body struct {
				Error struct{ Code, Message string }
			}
			_ = json.Unmarshal([]byte(r.Body), &body)
			msg := body.Error.Message
			if r.Status != http.StatusBadRequest || !strings.HasPrefix(msg, "field "+tc.field+": ") ||
				!strings.Contains(msg, tc.rule) || strings.Contains(msg, "%!") {
				t.Errorf("%s with %v: %d %s; want 400 naming %s and %q", name, tc.profile, r.Status, r.Body, tc.field, tc.rule)
			}
		}
	}
}
