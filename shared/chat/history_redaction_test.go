package chat_test

import (
	"context"
	"strings"
	"testing"

	"regintel/shared/chat"
	"regintel/shared/conversation"
	"regintel/shared/llm/llmtest"
	"regintel/shared/pii"
)

// A stored turn records the detector version it was redacted under. An
// earlier turn is redacted again before it goes to the model unless it was
// stored under the current version: then the second pass is skipped (it
// would find nothing new), and what the turn stored is what is sent.
func TestHistoryIsRedactedAgainUnlessStoredUnderTheCurrentVersion(t *testing.T) {
	const email = "jane.doe@example.com"
	cases := []struct {
		stamp    string
		wantSent bool // the raw email reaches the model
	}{
		{"", false},             // stored as written (store redaction off)
		{"2020-01-01.1", false}, // stored under older detectors
		{pii.Version, true},     // stored by these detectors: sent as stored
	}
	for _, tc := range cases {
		t.Run("stamp="+tc.stamp, func(t *testing.T) {
			h := newHarness(t, "responses")
			h.srv.Enqueue(llmtest.TextScript("Noted."))
			_, res := h.turn(chat.Request{Message: "What is the VAT rate?"})
			convID := *res.Metadata.ConversationID
			stored := conversation.Turn{UserText: "Write to " + email, AssistantText: "I will write to " + email + ".",
				Status: conversation.TurnOK, Metadata: conversation.TurnMetadata{Redaction: tc.stamp}}
			if _, err := h.store.AppendTurn(conversation.WithOwner(context.Background(), "user-1"), tenantA, convID, stored); err != nil {
				t.Fatal(err)
			}
			h.srv.Enqueue(llmtest.TextScript("Noted again."))
			h.turn(chat.Request{Message: "And the reduced rate?", ConversationID: convID})
			req, _ := h.srv.LastRequest()
			var sent strings.Builder
			for _, m := range req.Messages {
				sent.WriteString(m.Content)
			}
			if got := strings.Contains(sent.String(), email); got != tc.wantSent {
				t.Errorf("the model got the stored email: %v, want %v", got, tc.wantSent)
			}
		})
	}
}

// The stamp is the current version exactly when the turn was stored
// redacted.
func TestStoredTurnRecordsItsRedactionVersion(t *testing.T) {
	for mode, want := range map[string]string{chat.PIIBoth: pii.Version, chat.PIIStore: pii.Version, chat.PIILLM: "", chat.PIIOff: ""} {
		t.Run(mode, func(t *testing.T) {
			h := newHarness(t, "responses", withConfig(func(c *chat.Config) { c.PIIRedaction = mode }))
			h.srv.Enqueue(llmtest.TextScript("Noted."))
			_, res := h.turn(chat.Request{Message: "What is the VAT rate?"})
			state, err := h.store.StartTurn(conversation.WithOwner(context.Background(), "user-1"), tenantA, *res.Metadata.ConversationID, conversation.TurnStart{HistoryTurns: 5})
			if err != nil || len(state.History) != 1 {
				t.Fatalf("history %v, %v", state.History, err)
			}
			if got := state.History[0].Metadata.Redaction; got != want {
				t.Errorf("stored redaction %q, want %q", got, want)
			}
		})
	}
}
