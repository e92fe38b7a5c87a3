package httpapi_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"regintel/shared/chat"
	"regintel/shared/llm"
	"regintel/shared/llm/llmtest"
)

func requestContextArgs() map[string]any {
	return map[string]any{"items": []map[string]any{
		{"key": "annual_income", "description": "Your gross income for 2024", "kind": "profile_fact", "required": true},
		{"key": "p60", "description": "The text of your 2024 P60", "kind": "document", "required": true},
		{"key": "notes", "description": "Anything else relevant", "kind": "text", "required": false},
	}}
}

const deferredQuestion = "Am I due a tax refund for 2024?"

type contextRequestEvent struct {
	RequestID string `json:"requestId"`
	Items     []struct {
		Key, Description, Kind string
		Required               bool
	} `json:"items"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// askForContext runs a turn in which the model calls request_context, and
// returns the conversation id and the request event.
func askForContext(t *testing.T, e *env, conversationID string) (string, contextRequestEvent) {
	t.Helper()
	e.llm.Enqueue(llmtest.Script{Steps: llmtest.Steps(
		llmtest.Words("I need a few details first."),
		llmtest.ToolCallJSON("request_context", requestContextArgs(), 4),
	)})
	body := map[string]any{"message": deferredQuestion}
	if conversationID != "" {
		body["conversationId"] = conversationID
	}
	resp := e.chat(body, nil)
	if resp.Status != 200 {
		t.Fatalf("asking turn: %d %s", resp.Status, resp.Body)
	}
	if got := resp.doneStatus(t); got != "context_required" {
		t.Fatalf("done status = %q, want context_required (events %v)", got, resp.names())
	}
	events := resp.named("context_request")
	if len(events) != 1 {
		t.Fatalf("want one context_request event, got %v", resp.names())
	}
	var ev contextRequestEvent
	if err := json.Unmarshal(events[0].Data, &ev); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(resp.Body, "annual_income\\\"") || strings.Contains(resp.text(), "request_context") {
		t.Fatal("tool call leaked into the text stream")
	}
	m := resp.metadata(t)
	return *m.ConversationID, ev
}

func TestContextHandoffSupplyResumesDeferredQuestion(t *testing.T) {
	forEachStore(t, testContextHandoffSupply)
}

func testContextHandoffSupply(t *testing.T, postgres bool) {
	e := newEnv(t, envOptions{postgres: postgres})
	convID, ev := askForContext(t, e, "")
	checkRequestPending(t, e, convID, ev)

	// Partial supply: 202 naming what is still missing.
	path := "/conversations/" + convID + "/context-requests/" + ev.RequestID
	supplyPartially(t, e, path)

	// The rest: the deferred question is answered in this stream.
	e.llm.Enqueue(llmtest.TextScript("With gross pay of EUR 52,000 you are likely due a refund."))
	resumed := e.do("POST", path, map[string]any{"items": []map[string]any{{"key": "p60", "content": "P60 2024: gross pay EUR 52,000; tax deducted EUR 11,900"}}})
	if resumed.Status != 200 || resumed.doneStatus(t) != "ok" {
		t.Fatalf("full supply: %d %s", resumed.Status, resumed.Body)
	}
	if resumed.text() != "With gross pay of EUR 52,000 you are likely due a refund." {
		t.Fatalf("resumed answer = %q", resumed.text())
	}
	checkResumedRequest(t, e.llm.Requests()[1])
	m := resumed.metadata(t)
	if m.QueryComposition != "doc" || m.ContextRequestID != ev.RequestID || *m.TurnNumber != 2 {
		t.Fatalf("resumed metadata = %+v", m)
	}
	status, _ := e.contextRequest(convID, ev.RequestID)
	turns := e.export(convID).Turns
	if len(turns) != 2 {
		t.Fatalf("%d turns stored, want 2", len(turns))
	}
	storedQuestion := turns[1].UserText
	if status != "fulfilled" || storedQuestion != deferredQuestion {
		t.Fatalf("after resume: request %q, turn 2 question %q", status, storedQuestion)
	}

	// The request is closed now.
	checkSupplyRefused(t, e, convID, path)
}

// checkRequestPending: the asked-for items and expiry, the tool offered,
// the request and turn stored as waiting, and a new message refused while
// the request waits.
func checkRequestPending(t *testing.T, e *env, convID string, ev contextRequestEvent) {
	t.Helper()
	if len(ev.Items) != 3 || ev.Items[0].Key != "annual_income" || !ev.Items[1].Required || ev.Items[2].Required || ev.Items[1].Kind != "document" {
		t.Fatalf("context_request items = %+v", ev.Items)
	}
	if d := time.Until(ev.ExpiresAt); d < 14*time.Minute || d > 16*time.Minute {
		t.Fatalf("expiresAt %v is not about 15 minutes ahead", ev.ExpiresAt)
	}
	first := e.llm.Requests()[0]
	if !slices.Contains(first.ToolNames(), "request_context") || !strings.Contains(first.System, "call the `request_context` tool") {
		t.Fatalf("request_context not offered: tools %v", first.ToolNames())
	}
	status, question := e.contextRequest(convID, ev.RequestID)
	turnStatus := e.export(convID).Turns[0].Status
	if status != "pending" || question != deferredQuestion || turnStatus != "context_required" {
		t.Fatalf("stored request %q %q, turn %q", status, question, turnStatus)
	}

	// A new message while the request waits is refused with the request.
	blocked := e.chat(map[string]any{"conversationId": convID, "message": "Something else"}, nil)
	if blocked.Status != 409 || !strings.Contains(blocked.Body, `"code":"context_required"`) || !strings.Contains(blocked.Body, ev.RequestID) {
		t.Fatalf("message while pending: %d %s", blocked.Status, blocked.Body)
	}
}

func supplyPartially(t *testing.T, e *env, path string) {
	t.Helper()
	partial := e.do("POST", path, map[string]any{"items": []map[string]any{{"key": "annual_income", "content": "EUR 52,000"}}})
	if partial.Status != 202 {
		t.Fatalf("partial supply: %d %s", partial.Status, partial.Body)
	}
	var p struct {
		Status   string
		Missing  []struct{ Key string }
		Supplied []struct{ Key, Kind string }
	}
	if err := json.Unmarshal([]byte(partial.Body), &p); err != nil {
		t.Fatal(err)
	}
	if p.Status != "partial" || len(p.Missing) != 1 || p.Missing[0].Key != "p60" || len(p.Supplied) != 1 || p.Supplied[0].Kind != "profile_fact" {
		t.Fatalf("partial answer = %s", partial.Body)
	}
	if len(e.llm.Requests()) != 1 {
		t.Fatal("a partial supply called the model")
	}
}

// checkResumedRequest: the resumed turn asks the deferred question, with
// the supplied context in its own fenced user message, without offering
// request_context again or sending the context_required turn as history.
func checkResumedRequest(t *testing.T, req llmtest.RecordedRequest) {
	t.Helper()
	if req.LastUserMessage() != deferredQuestion {
		t.Fatalf("resumed turn asked %q, want the deferred question", req.LastUserMessage())
	}
	supplied := suppliedContext(req)
	if !strings.Contains(supplied, "<supplied_context>") || !strings.Contains(supplied, "### p60 (document)\nP60 2024: gross pay EUR 52,000; tax deducted EUR 11,900") ||
		!strings.Contains(supplied, "### annual_income (profile_fact)\nEUR 52,000") || strings.Contains(req.System, "EUR 52,000") {
		t.Fatalf("supplied context not in its own fenced user message:\n%s\nsystem:\n%s", supplied, req.System)
	}
	if slices.Contains(req.ToolNames(), "request_context") {
		t.Fatal("request_context offered again on the resumed turn")
	}
	for _, m := range req.Messages {
		if m.Content == "I need a few details first." {
			t.Fatal("the context_required turn was sent as history")
		}
	}
}

// checkSupplyRefused: a supply to the fulfilled request, to an unknown
// request, from another tenant, or with bad items is refused.
func checkSupplyRefused(t *testing.T, e *env, convID, path string) {
	t.Helper()
	again := e.do("POST", path, map[string]any{"items": []map[string]any{{"key": "p60", "content": "x"}}})
	if again.Status != 409 || !strings.Contains(again.Body, "context_request_closed") {
		t.Fatalf("supply to fulfilled request: %d %s", again.Status, again.Body)
	}
	// Unknown request and other tenant: 404.
	if r := e.do("POST", "/conversations/"+convID+"/context-requests/00000000-0000-4000-8000-000000000000", map[string]any{"items": []map[string]any{{"key": "k", "content": "x"}}}); r.Status != 404 {
		t.Fatalf("unknown request: %d %s", r.Status, r.Body)
	}
	if r := e.post(path, "application/json", `{"items":[{"key":"k","content":"x"}]}`, map[string]string{"X-Tenant-Id": "tenant-b"}); r.Status != 404 {
		t.Fatalf("other tenant: %d %s", r.Status, r.Body)
	}
	// Validation: empty content, bad key, unknown kind.
	for _, bad := range []string{`{"items":[]}`, `{"items":[{"key":"k","content":"  "}]}`, `{"items":[{"key":"a b!","content":"x"}]}`, `{"items":[{"key":"k","kind":"video","content":"x"}]}`} {
		if r := e.post(path, "application/json", bad, nil); r.Status != 400 {
			t.Errorf("body %s: %d %s", bad, r.Status, r.Body)
		}
	}
}

// Expiry is tested on Postgres, where a request's expiry can be moved into
// the past without waiting.
func TestContextRequestExpiryAndForceRun(t *testing.T) {
	e := newEnv(t, envOptions{postgres: true})
	convID, ev := askForContext(t, e, "")

	// Expired (moved into the past in the database, no waiting): the next
	// turn runs without it and says so.
	if _, err := e.pool.Exec(t.Context(), `UPDATE context_requests SET expires_at = now() - interval '1 minute' WHERE id = $1::uuid`, ev.RequestID); err != nil {
		t.Fatal(err)
	}
	e.llm.Enqueue(llmtest.TextScript("A general answer."))
	next := e.chat(map[string]any{"conversationId": convID, "message": "What about in general?"}, nil)
	if next.Status != 200 || next.doneStatus(t) != "ok" || !strings.Contains(next.warnings(), "not supplied in time") {
		t.Fatalf("turn after expiry: %d warnings %q events %v", next.Status, next.warnings(), next.names())
	}
	var status string
	e.query(`SELECT status FROM context_requests WHERE id = $1::uuid`, []any{ev.RequestID}, &status)
	if status != "expired" {
		t.Fatalf("request status = %q, want expired", status)
	}

	// A supply to a request that expired unnoticed is 410.
	_, ev2 := askForContext(t, e, convID)
	if _, err := e.pool.Exec(t.Context(), `UPDATE context_requests SET expires_at = now() - interval '1 second' WHERE id = $1::uuid`, ev2.RequestID); err != nil {
		t.Fatal(err)
	}
	gone := e.do("POST", "/conversations/"+convID+"/context-requests/"+ev2.RequestID, map[string]any{"items": []map[string]any{{"key": "p60", "content": "x"}}})
	if gone.Status != 410 {
		t.Fatalf("supply after expiry: %d %s", gone.Status, gone.Body)
	}

	// forceRun skips a pending request explicitly.
	_, ev3 := askForContext(t, e, convID)
	e.llm.Enqueue(llmtest.TextScript("Answer without the details."))
	forced := e.chat(map[string]any{"conversationId": convID, "message": "Just answer please", "forceRun": true}, nil)
	if forced.Status != 200 || forced.doneStatus(t) != "ok" || !strings.Contains(forced.warnings(), "skipped") {
		t.Fatalf("forceRun: %d %s", forced.Status, forced.Body)
	}
	e.query(`SELECT status FROM context_requests WHERE id = $1::uuid`, []any{ev3.RequestID}, &status)
	if status != "skipped" {
		t.Fatalf("forced request status = %q", status)
	}

	// Inline supply in POST /chat answers the deferred question too.
	_, ev4 := askForContext(t, e, convID)
	e.llm.Enqueue(llmtest.TextScript("Inline answer."))
	inline := e.chat(map[string]any{"conversationId": convID, "contextSupply": map[string]any{"requestId": ev4.RequestID, "items": []map[string]any{
		{"key": "annual_income", "content": "EUR 40,000"}, {"key": "p60", "content": "Inline P60 text"}}}}, nil)
	if inline.Status != 200 || inline.doneStatus(t) != "ok" {
		t.Fatalf("inline supply: %d %s", inline.Status, inline.Body)
	}
	last, _ := e.llm.LastRequest()
	if last.LastUserMessage() != deferredQuestion || !strings.Contains(suppliedContext(last), "Inline P60 text") {
		t.Fatalf("inline supply did not resume the deferred question: %q", last.LastUserMessage())
	}
}

func TestSuppliedContextPersistsUntilDeleted(t *testing.T) {
	e := newContextEnv(t, chat.Config{})
	const note = "I am a self-employed carpenter registered for VAT since 2019."
	first := e.chat(map[string]any{"message": "Which VAT rate applies to my work?",
		"contextSupply": map[string]any{"items": []map[string]any{{"key": "occupation", "kind": "profile_fact", "content": note}}}}, nil)
	if first.Status != 200 {
		t.Fatalf("turn 1: %d %s", first.Status, first.Body)
	}
	convID := *first.metadata(t).ConversationID
	for turn := 2; turn <= 4; turn++ {
		resp := e.chat(map[string]any{"conversationId": convID, "message": "And another question?"}, nil)
		if resp.Status != 200 {
			t.Fatalf("turn %d: %d", turn, resp.Status)
		}
	}
	reqs := e.llm.Requests()
	for i, req := range reqs {
		if !strings.Contains(suppliedContext(req), note) || strings.Contains(req.System, note) {
			t.Fatalf("turn %d prompt lacks the supplied context, or has it in the system prompt", i+1)
		}
	}
	var itemID string
	for _, it := range e.export(convID).SuppliedItems {
		if it.Key == "occupation" {
			itemID = it.ID
		}
	}
	if itemID == "" {
		t.Fatal("the supplied item is not stored")
	}

	if r := e.post("/conversations/"+convID+"/context-items/"+itemID, "application/json", "{}", nil); r.Status != 405 {
		t.Fatalf("POST on an item: %d", r.Status)
	}
	otherTenant := e.doWithTenant("DELETE", "/conversations/"+convID+"/context-items/"+itemID, "tenant-b")
	if otherTenant != 404 {
		t.Fatalf("other tenant delete: %d", otherTenant)
	}
	if r := e.do("DELETE", "/conversations/"+convID+"/context-items/"+itemID, nil); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	if r := e.do("DELETE", "/conversations/"+convID+"/context-items/"+itemID, nil); r.Status != 404 {
		t.Fatalf("second delete: %d %s", r.Status, r.Body)
	}
	after := e.chat(map[string]any{"conversationId": convID, "message": "One more?"}, nil)
	if after.Status != 200 {
		t.Fatal(after.Body)
	}
	last, _ := e.llm.LastRequest()
	if strings.Contains(last.System, note) || suppliedContext(last) != "" {
		t.Fatal("deleted context still in the prompt")
	}
	if m := after.metadata(t); m.QueryComposition != "chat" {
		t.Fatalf("composition after delete = %q", m.QueryComposition)
	}
}

// doWithTenant sends a bodiless request as another tenant and returns the status.
func (e *env) doWithTenant(method, path, tenant string) int {
	e.t.Helper()
	req, err := newRequest(method, e.server.URL+path)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("X-Tenant-Id", tenant)
	resp, err := e.server.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// contextRequest returns the status and question of a context request, as
// the export route shows them.
func (e *env) contextRequest(conversationID, requestID string) (status, question string) {
	e.t.Helper()
	for _, r := range e.export(conversationID).ContextRequests {
		if r.ID == requestID {
			return r.Status, r.Question
		}
	}
	e.t.Fatalf("context request %s is not stored", requestID)
	return "", ""
}

// suppliedContext is the user message that carries the supplied context
// ("" when the request has none).
func suppliedContext(req llmtest.RecordedRequest) string {
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser && strings.Contains(m.Content, "<supplied_context>") {
			return m.Content
		}
	}
	return ""
}
