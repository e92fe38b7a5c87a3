package httpapi_test

import (
	"strings"
	"testing"

	"regintel/shared/chat"
	"regintel/shared/llm/llmtest"
)

func TestPIIRedactionPerMode(t *testing.T) {
	forEachStore(t, testPIIRedaction)
}

func testPIIRedaction(t *testing.T, postgres bool) {
	const (
		email    = "jane.doe@example.com"
		phone    = "087 123 4567"
		ppsn     = "1234567TW"
		message  = "My email is " + email + ", what can I claim?"
		supplied = "PPSN " + ppsn + " on file"
	)
	cases := []struct {
		mode       string
		store, llm bool
	}{
		{chat.PIIOff, false, false},
		{chat.PIIStore, true, false},
		{chat.PIILLM, false, true},
		{chat.PIIBoth, true, true},
		{"", true, true}, // the default
	}
	for _, tc := range cases {
		t.Run("mode="+tc.mode, func(t *testing.T) {
			e := newEnv(t, envOptions{postgres: postgres, engine: chat.Config{PIIRedaction: tc.mode}})
			// The phone number arrives split across two deltas; only the
			// accumulated answer shows it whole.
			e.llm.Enqueue(llmtest.Script{Steps: []llmtest.Step{
				llmtest.Text("Call the office on 087 123"), llmtest.Text(" 4567 to check."),
			}})
			first := e.chat(map[string]any{"message": message,
				"contextSupply": map[string]any{"items": []map[string]any{{"key": "ids", "content": supplied}}}}, nil)
			if first.Status != 200 || first.doneStatus(t) != "ok" {
				t.Fatalf("turn 1: %d %s", first.Status, first.Body)
			}
			// The live stream is the user's own answer: never altered.
			if first.text() != "Call the office on "+phone+" to check." {
				t.Fatalf("streamed text = %q", first.text())
			}
			convID := *first.metadata(t).ConversationID

			held := e.export(convID)
			if len(held.Turns) != 1 || len(held.SuppliedItems) != 1 {
				t.Fatalf("stored %d turns and %d supplied items, want 1 and 1", len(held.Turns), len(held.SuppliedItems))
			}
			userText, answerText := held.Turns[0].UserText, held.Turns[0].AssistantText
			itemContent, itemRedacted := held.SuppliedItems[0].Content, held.SuppliedItems[0].Redacted
			stored := map[string]bool{
				"message": !strings.Contains(userText, email) && strings.Contains(userText, "[REDACTED:EMAIL]"),
				"answer":  !strings.Contains(answerText, phone) && strings.Contains(answerText, "[REDACTED:PHONE]"),
				"context": !strings.Contains(itemContent, ppsn) && strings.Contains(itemContent, "[REDACTED:PPSN]") && itemRedacted,
			}
			for target, redacted := range stored {
				if redacted != tc.store {
					t.Errorf("stored %s redacted = %v, want %v", target, redacted, tc.store)
				}
			}
			titleHasEmail := strings.Contains(held.Conversation.Title, email)
			if titleHasEmail == tc.store {
				t.Errorf("title holds the email: %v (store redaction %v)", titleHasEmail, tc.store)
			}

			// Turn 2 sends turn 1 as history and the supplied context again.
			e.llm.Enqueue(llmtest.TextScript("Noted."))
			second := e.chat(map[string]any{"conversationId": convID, "message": "Ring me on " + phone}, nil)
			if second.Status != 200 {
				t.Fatalf("turn 2: %d %s", second.Status, second.Body)
			}
			req, _ := e.llm.LastRequest()
			var sent strings.Builder
			sent.WriteString(req.System)
			for _, m := range req.Messages {
				sent.WriteString("\n" + m.Content)
			}
			// The new message reaches the model raw unless llm redaction is
			// on; what comes back from storage was also redacted on store.
			if got := strings.Contains(req.LastUserMessage(), phone); got == tc.llm {
				t.Errorf("new message sent with the phone number: %v (llm redaction %v)", got, tc.llm)
			}
			for _, raw := range []string{email, ppsn} {
				want := !tc.llm && !tc.store
				if got := strings.Contains(sent.String(), raw); got != want {
					t.Errorf("model request contains stored %q: %v, want %v", raw, got, want)
				}
			}
		})
	}
}
