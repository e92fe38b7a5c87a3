package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"regintel/shared/chat"
	"regintel/shared/llm/llmtest"
	"regintel/shared/pii"
)

func TestPIIRedactionPerMode(t *testing.T) {
	forEachStore(t, testPIIRedaction)
}

// The personal data of the redaction test: in the message, the streamed
// answer and the supplied context.
const (
	piiEmail    = "jane.doe@example.com"
	piiPhone    = "087 123 4567"
	piiPPSN     = "1234567TW"
	piiMessage  = "My email is " + piiEmail + ", what can I claim?"
	piiSupplied = "PPSN " + piiPPSN + " on file"
)

func testPIIRedaction(t *testing.T, postgres bool) {
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
			convID := firstTurnWithPII(t, e)
			checkStoredRedaction(t, e, convID, tc.store)
			checkSentRedaction(t, e, convID, tc.store, tc.llm)
		})
	}
}

// firstTurnWithPII has a turn whose message, answer and supplied context
// each hold personal data, and returns the conversation's id.
func firstTurnWithPII(t *testing.T, e *env) string {
	t.Helper()
	// The phone number arrives split across two deltas; only the
	// accumulated answer shows it whole.
	e.llm.Enqueue(llmtest.Script{Steps: []llmtest.Step{
		llmtest.Text("Call the office on 087 123"), llmtest.Text(" 4567 to check."),
	}})
	first := e.chat(map[string]any{"message": piiMessage,
		"contextSupply": map[string]any{"items": []map[string]any{{"key": "ids", "content": piiSupplied}}}}, nil)
	if first.Status != 200 || first.doneStatus(t) != "ok" {
		t.Fatalf("turn 1: %d %s", first.Status, first.Body)
	}
	// The live stream is the user's own answer: never altered.
	if first.text() != "Call the office on "+piiPhone+" to check." {
		t.Fatalf("streamed text = %q", first.text())
	}
	return *first.metadata(t).ConversationID
}

// checkStoredRedaction: the stored message, answer, supplied item and
// title are redacted exactly when store redaction is on.
func checkStoredRedaction(t *testing.T, e *env, convID string, store bool) {
	t.Helper()
	held := e.export(convID)
	if len(held.Turns) != 1 || len(held.SuppliedItems) != 1 {
		t.Fatalf("stored %d turns and %d supplied items, want 1 and 1", len(held.Turns), len(held.SuppliedItems))
	}
	userText, answerText := held.Turns[0].UserText, held.Turns[0].AssistantText
	if stamped := held.Turns[0].Metadata.Redaction == pii.Version; stamped != store {
		t.Errorf("turn stamped with the detector version: %v (store redaction %v)", stamped, store)
	}
	itemContent, itemRedacted := held.SuppliedItems[0].Content, held.SuppliedItems[0].Redacted
	stored := map[string]bool{
		"message": !strings.Contains(userText, piiEmail) && strings.Contains(userText, "[REDACTED:EMAIL]"),
		"answer":  !strings.Contains(answerText, piiPhone) && strings.Contains(answerText, "[REDACTED:PHONE]"),
		"context": !strings.Contains(itemContent, piiPPSN) && strings.Contains(itemContent, "[REDACTED:PPSN]") && itemRedacted,
	}
	for target, redacted := range stored {
		if redacted != store {
			t.Errorf("stored %s redacted = %v, want %v", target, redacted, store)
		}
	}
	titleHasEmail := strings.Contains(held.Conversation.Title, piiEmail)
	if titleHasEmail == store {
		t.Errorf("title holds the email: %v (store redaction %v)", titleHasEmail, store)
	}
}

// checkSentRedaction has turn 2, which sends turn 1 as history and the
// supplied context again. The new message reaches the model raw unless
// llm redaction is on; what comes back from storage was also redacted on
// store.
func checkSentRedaction(t *testing.T, e *env, convID string, store, llm bool) {
	t.Helper()
	e.llm.Enqueue(llmtest.TextScript("Noted."))
	second := e.chat(map[string]any{"conversationId": convID, "message": "Ring me on " + piiPhone}, nil)
	if second.Status != 200 {
		t.Fatalf("turn 2: %d %s", second.Status, second.Body)
	}
	req, _ := e.llm.LastRequest()
	var sent strings.Builder
	sent.WriteString(req.System)
	for _, m := range req.Messages {
		sent.WriteString("\n" + m.Content)
	}
	if got := strings.Contains(req.LastUserMessage(), piiPhone); got == llm {
		t.Errorf("new message sent with the phone number: %v (llm redaction %v)", got, llm)
	}
	for _, raw := range []string{piiEmail, piiPPSN} {
		want := !llm && !store
		if got := strings.Contains(sent.String(), raw); got != want {
			t.Errorf("model request contains stored %q: %v, want %v", raw, got, want)
		}
	}
}

// A free-text persona and a title are stored redacted, whichever route
// sets them (a chat turn's profile, PATCH /conversations/{id}, the
// compatibility PATCH): the list, the conversation and the export return
// no personal data.
func TestPersonaAndTitleAreRedactedAtRest(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		e := newEnv(t, envOptions{postgres: postgres, api: withCompatRoutes})
		e.llm.SetDefault(llmtest.TextScript("VAT is 23%."))
		persona := "sole trader, reach me on 087 123 4567"
		id := e.chat(map[string]any{"message": "What is VAT?", "profile": map[string]any{"personaType": persona, "jurisdictions": []string{"IE"}}}, nil).Header.Get("X-Conversation-Id")
		held := e.export(id)
		if p := held.Conversation.Profile; p == nil || strings.Contains(p.PersonaType, "087") || !strings.Contains(p.PersonaType, "[REDACTED:PHONE]") {
			t.Fatalf("persona stored from a turn: %+v", p)
		}
		patch := func(path, body string) {
			t.Helper()
			req, _ := http.NewRequest(http.MethodPatch, e.server.URL+path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Tenant-Id", "tenant-a")
			if resp := e.send(req); resp.Status >= 300 {
				t.Fatalf("PATCH %s: %d %s", path, resp.Status, resp.Body)
			}
		}
		patch("/conversations/"+id, `{"title":"Refund for mary.obrien@example.ie","profile":{"personaType":"PAYE worker, PPSN 1234567FA","jurisdictions":["IE"]}}`)
		held = e.export(id)
		if held.Conversation.Title != "Refund for [REDACTED:EMAIL]" {
			t.Errorf("title stored %q", held.Conversation.Title)
		}
		if p := held.Conversation.Profile; p == nil || p.PersonaType != "PAYE worker, PPSN [REDACTED:PPSN]" {
			t.Errorf("persona stored by PATCH: %+v", p)
		}
		patch("/api/conversations/"+id, `{"title":"Call 087 123 4567"}`)
		if title := e.export(id).Conversation.Title; title != "Call [REDACTED:PHONE]" {
			t.Errorf("title stored by the compatibility PATCH %q", title)
		}
		list := e.get("/conversations", map[string]string{"X-Tenant-Id": "tenant-a"})
		for _, leak := range []string{"087 123", "mary.obrien", "1234567FA"} {
			if strings.Contains(list.Body, leak) {
				t.Errorf("the conversation list holds %q: %s", leak, list.Body)
			}
		}
	})
}

// Supplied context is stored redacted in its label (the key) as in its
// value, whichever route supplies it, and so are the items the model asks
// for: the conversation and the export return markers, never the values.
func TestContextItemsAreRedactedAtRest(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		for _, tc := range contextItemSupplies() {
			t.Run(tc.name, func(t *testing.T) {
				e := newEnv(t, envOptions{postgres: postgres})
				convID := tc.supply(e, t)
				held := e.export(convID)
				if len(held.SuppliedItems) < 2 {
					t.Fatalf("stored %d supplied items, want 2 or more", len(held.SuppliedItems))
				}
				exported, _ := json.Marshal(held)
				got := e.get("/conversations/"+convID, map[string]string{"X-Tenant-Id": "tenant-a"})
				if got.Status != 200 {
					t.Fatalf("GET conversation: %d %s", got.Status, got.Body)
				}
				for _, body := range []string{string(exported), got.Body} {
					for _, leak := range []string{piiEmail, piiPhone, piiPPSN, "087-123-4567"} {
						if strings.Contains(body, leak) {
							t.Errorf("%q is returned as written: %s", leak, body)
						}
					}
				}
				for _, it := range held.SuppliedItems {
					if !strings.Contains(it.Key+it.Content, "[REDACTED:") || !it.Redacted {
						t.Errorf("supplied item stored without a marker: %+v", it)
					}
				}
			})
		}
	})
}

// askForContextWith runs the turn whose queued script asks for context,
// and returns the conversation id and the request event.
func askForContextWith(t *testing.T, e *env) (string, contextRequestEvent) {
	t.Helper()
	resp := e.chat(map[string]any{"message": deferredQuestion}, nil)
	if resp.Status != 200 || resp.doneStatus(t) != "context_required" {
		t.Fatalf("asking turn: %d %s", resp.Status, resp.Body)
	}
	var ev contextRequestEvent
	if events := resp.named("context_request"); len(events) != 1 {
		t.Fatalf("want one context_request event, got %v", resp.names())
	} else if err := json.Unmarshal(events[0].Data, &ev); err != nil {
		t.Fatal(err)
	}
	// The request's items are sent as stored.
	for _, it := range ev.Items {
		if strings.Contains(it.Description, piiEmail) {
			t.Errorf("the context request event holds the email: %+v", it)
		}
	}
	return *resp.metadata(t).ConversationID, ev
}

// contextItemSupply is a route that stores supplied context; supply
// returns the conversation's id.
type contextItemSupply struct {
	name   string
	supply func(e *env, t *testing.T) string
}

// contextItemSupplies are the routes that store supplied context, each
// with personal data in its keys and values.
func contextItemSupplies() []contextItemSupply {
	return []contextItemSupply{
		{"unasked with a chat turn", func(e *env, t *testing.T) string {
			e.llm.Enqueue(llmtest.TextScript("Noted."))
			resp := e.chat(map[string]any{"message": "Am I due a refund?", "contextSupply": map[string]any{"items": []map[string]any{
				{"key": "ppsn-" + piiPPSN, "content": "Write to " + piiEmail},
				{"key": "mobile-087-123-4567", "content": "Mobile " + piiPhone},
			}}}, nil)
			if resp.Status != 200 {
				t.Fatalf("chat: %d %s", resp.Status, resp.Body)
			}
			return resp.Header.Get("X-Conversation-Id")
		}},
		{"answering a context request", func(e *env, t *testing.T) string {
			e.llm.Enqueue(llmtest.Script{Steps: llmtest.Steps(llmtest.Words("I need one detail."),
				llmtest.ToolCallJSON("request_context", map[string]any{"items": []map[string]any{
					{"key": "contact", "description": "Confirm " + piiEmail + " or " + piiPhone + " is yours", "kind": "text", "required": true},
				}}, 2))})
			convID, ev := askForContextWith(t, e)
			e.llm.Enqueue(llmtest.TextScript("Thanks."))
			resp := e.do("POST", "/conversations/"+convID+"/context-requests/"+ev.RequestID, map[string]any{"items": []map[string]any{
				{"key": "contact", "content": "PPSN " + piiPPSN + ", phone " + piiPhone},
				{"key": "ppsn-" + piiPPSN, "content": "Write to " + piiEmail},
			}})
			if resp.Status != 200 {
				t.Fatalf("supply: %d %s", resp.Status, resp.Body)
			}
			return convID
		}},
	}
}
