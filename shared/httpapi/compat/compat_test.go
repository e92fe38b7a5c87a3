package compat_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"regintel/shared/httpapi"
	"regintel/shared/llm/llmtest"
)

// Field readers: each fails the test unless the field has the type the
// reference app's code reads it as.
func str(t *testing.T, obj map[string]any, name string) string {
	t.Helper()
	v, ok := obj[name].(string)
	if !ok {
		t.Fatalf("%s = %#v, want a string (in %v)", name, obj[name], obj)
	}
	return v
}

func strOrNull(t *testing.T, obj map[string]any, name string) *string {
	t.Helper()
	v, present := obj[name]
	if !present {
		t.Fatalf("%s is missing, want a string or null (in %v)", name, obj)
	}
	if v == nil {
		return nil
	}
	s, ok := v.(string)
	if !ok {
		t.Fatalf("%s = %#v, want a string or null", name, v)
	}
	return &s
}

func object(t *testing.T, obj map[string]any, name string) map[string]any {
	t.Helper()
	v, ok := obj[name].(map[string]any)
	if !ok {
		t.Fatalf("%s = %#v, want an object", name, obj[name])
	}
	return v
}

func objects(t *testing.T, obj map[string]any, name string) []map[string]any {
	t.Helper()
	list, ok := obj[name].([]any)
	if !ok {
		t.Fatalf("%s = %#v, want an array", name, obj[name])
	}
	out := make([]map[string]any, len(list))
	for i, v := range list {
		if out[i], ok = v.(map[string]any); !ok {
			t.Fatalf("%s[%d] = %#v, want an object", name, i, v)
		}
	}
	return out
}

func strings_(t *testing.T, obj map[string]any, name string) []string {
	t.Helper()
	list, ok := obj[name].([]any)
	if !ok {
		t.Fatalf("%s = %#v, want an array of strings", name, obj[name])
	}
	out := make([]string, len(list))
	for i, v := range list {
		if out[i], ok = v.(string); !ok {
			t.Fatalf("%s[%d] = %#v, want a string", name, i, v)
		}
	}
	return out
}

func boolean(t *testing.T, obj map[string]any, name string) bool {
	t.Helper()
	v, ok := obj[name].(bool)
	if !ok {
		t.Fatalf("%s = %#v, want a boolean", name, obj[name])
	}
	return v
}

func vrtConcept() map[string]any {
	return map[string]any{"domain": "TAX", "kind": "VRT", "jurisdiction": "IE", "prefLabel": "Vehicle Registration Tax"}
}

func stampDutyConcept() map[string]any {
	return map[string]any{"domain": "TAX", "kind": "STAMP_DUTY", "jurisdiction": "IE", "prefLabel": "Stamp Duty"}
}

// ask sends one question through POST /api/chat as the reference page
// does (with the fields it adds) and returns the conversation id.
func (e *env) ask(conversationID, question string, scripts ...llmtest.Script) string {
	e.t.Helper()
	e.llm.Enqueue(scripts...)
	body := map[string]any{
		"message": question, "profile": map[string]any{"personaType": "self-employed", "jurisdictions": []string{"IE"}},
		"scenarioHint": nil, "shareAudience": "private", "tenantAccess": "edit", "title": "", "userId": owner,
	}
	if conversationID != "" {
		body["conversationId"] = conversationID
	}
	resp := e.do(owner, http.MethodPost, "/api/chat", body)
	if resp.status != http.StatusOK || !strings.Contains(string(resp.body), "event: done") {
		e.t.Fatalf("POST /api/chat: %d %s", resp.status, resp.body)
	}
	id := resp.header.Get(httpapi.HeaderConversationID)
	if id == "" {
		e.t.Fatal("no conversation id on the stream")
	}
	return id
}

// captureThenAnswer scripts a turn that captures concept, then answers.
func captureThenAnswer(answer string, concept map[string]any) []llmtest.Script {
	capture := llmtest.Script{Steps: []llmtest.Step{llmtest.ToolCallJSON("capture_concepts", map[string]any{"concepts": []any{concept}}, 2)}}
	return []llmtest.Script{capture, llmtest.TextScript(answer)}
}

func TestReferenceAppHoldsAConversation(t *testing.T) {
	for _, store := range []string{"memory", "postgres"} {
		t.Run(store, func(t *testing.T) {
			e := newEnv(t, envOptions{postgres: store == "postgres"})
			id := e.ask("", "What is VRT?", captureThenAnswer("VRT is charged on registration.", vrtConcept())...)
			e.ask(id, "And stamp duty?", captureThenAnswer("Stamp duty is charged on deeds.", stampDutyConcept())...)
			e.ask(id, "Thanks.", llmtest.TextScript("You are welcome."))

			checkConversationRead(t, e, id)
			checkPaths(t, e, id)
			checkSharingIsStoredButGrantsNothing(t, e, id)
			checkBodiesAreReadStrictly(t, e, id)
			checkArchiveMovesBetweenTabs(t, e, id)
			checkOtherUserSeesNothing(t, e, id)
		})
	}
}

// After every stream the page reads GET /api/conversations/{id}.
func checkConversationRead(t *testing.T, e *env, id string) {
	body := e.do(owner, http.MethodGet, "/api/conversations/"+id, nil).json(t)
	conv := object(t, body, "conversation")
	if str(t, conv, "id") != id || str(t, conv, "shareAudience") != "private" || str(t, conv, "tenantAccess") != "edit" ||
		str(t, conv, "effectiveAccess") != "owner" || str(t, conv, "personaId") != "self-employed" {
		t.Errorf("conversation = %v", conv)
	}
	strOrNull(t, conv, "title")
	if j := strings_(t, conv, "jurisdictions"); !slices.Equal(j, []string{"IE"}) {
		t.Errorf("jurisdictions = %v", j)
	}
	if str(t, conv, "activePathId") == "" {
		t.Error("activePathId is empty")
	}
	messages := objects(t, body, "messages")
	checkReadMessages(t, messages, str(t, conv, "activePathId"))
	checkFirstAnswerRead(t, messages[1])
	checkThirdAnswerRead(t, messages[5])
}

// checkReadMessages: three turns read as six messages on the active path,
// each with its own id.
func checkReadMessages(t *testing.T, messages []map[string]any, activePathID string) {
	t.Helper()
	wantRoles := []string{"user", "assistant", "user", "assistant", "user", "assistant"}
	if len(messages) != len(wantRoles) {
		t.Fatalf("%d messages, want %d: %v", len(messages), len(wantRoles), messages)
	}
	ids := map[string]bool{}
	for i, m := range messages {
		if str(t, m, "role") != wantRoles[i] || str(t, m, "content") == "" || ids[str(t, m, "id")] {
			t.Errorf("message %d = %v", i, m)
		}
		ids[str(t, m, "id")] = true
		if m["sequenceInPath"] != float64(i+1) || str(t, m, "pathId") != activePathID || boolean(t, m, "isBranchPoint") {
			t.Errorf("message %d path fields = %v", i, m)
		}
	}
}

// checkFirstAnswerRead: the first answer cites VRT, with no earlier
// concepts in play and so no context summary.
func checkFirstAnswerRead(t *testing.T, m map[string]any) {
	t.Helper()
	if m["content"] != "VRT is charged on registration." {
		t.Errorf("first answer = %q", m["content"])
	}
	first := object(t, m, "metadata")
	if refs := strings_(t, first, "referencedNodes"); !slices.Equal(refs, []string{"TAX:IE:VRT"}) {
		t.Errorf("first answer referencedNodes = %v", refs)
	}
	if prior := objects(t, first, "priorTurnNodes"); len(prior) != 0 {
		t.Errorf("first answer priorTurnNodes = %v, want none", prior)
	}
	if _, has := first["conversationContextSummary"]; has {
		t.Errorf("first answer has a context summary: %v", first["conversationContextSummary"])
	}
	strings_(t, first, "warnings")
	str(t, first, "disclaimerKey")
}

// checkThirdAnswerRead: the third answer had both earlier concepts in play,
// newest first: stamp duty labelled by its capture, VRT by the graph.
func checkThirdAnswerRead(t *testing.T, m map[string]any) {
	t.Helper()
	third := object(t, m, "metadata")
	prior := objects(t, third, "priorTurnNodes")
	if len(prior) != 2 {
		t.Fatalf("third answer priorTurnNodes = %v, want 2", prior)
	}
	want := [][2]string{{"TAX:IE:STAMP_DUTY", "Stamp Duty"}, {"TAX:IE:VRT", "Vehicle Registration Tax"}}
	for i, n := range prior {
		if str(t, n, "id") != want[i][0] || str(t, n, "label") != want[i][1] || str(t, n, "type") == "" {
			t.Errorf("priorTurnNodes[%d] = %v, want %v", i, n, want[i])
		}
	}
	summary := str(t, third, "conversationContextSummary")
	if !strings.Contains(summary, "Stamp Duty") || !strings.Contains(summary, "Vehicle Registration Tax") {
		t.Errorf("conversationContextSummary = %q", summary)
	}
}

// The path provider reads the paths, the active path and its messages.
func checkPaths(t *testing.T, e *env, id string) {
	paths := objects(t, e.do(owner, http.MethodGet, "/api/conversations/"+id+"/paths", nil).json(t), "paths")
	if len(paths) != 1 || !boolean(t, paths[0], "isPrimary") || !boolean(t, paths[0], "isActive") || boolean(t, paths[0], "isMerged") {
		t.Fatalf("paths = %v", paths)
	}
	pathID := str(t, paths[0], "id")
	active := object(t, e.do(owner, http.MethodGet, "/api/conversations/"+id+"/active-path", nil).json(t), "path")
	if str(t, active, "id") != pathID || active["messageCount"] != float64(6) {
		t.Errorf("active path = %v", active)
	}
	set := e.do(owner, http.MethodPut, "/api/conversations/"+id+"/active-path", map[string]any{"pathId": pathID})
	if set.status != http.StatusOK || str(t, object(t, set.json(t), "path"), "id") != pathID {
		t.Errorf("PUT active-path: %d %s", set.status, set.body)
	}
	if r := e.do(owner, http.MethodPut, "/api/conversations/"+id+"/active-path", map[string]any{"pathId": "branch-1"}); r.status != http.StatusNotFound {
		t.Errorf("PUT active-path to another path: %d", r.status)
	}
	messages := objects(t, e.do(owner, http.MethodGet, "/api/conversations/"+id+"/paths/"+pathID+"/messages", nil).json(t), "messages")
	if len(messages) != 6 || str(t, messages[0], "messageType") != "standard" || str(t, messages[0], "createdAt") == "" {
		t.Errorf("path messages = %v", messages)
	}
	for _, path := range []string{"/branch", "/paths/" + pathID + "/merge", "/messages/turn-1-user/pin"} {
		r := e.do(owner, http.MethodPost, "/api/conversations/"+id+path, map[string]any{})
		if r.status != http.StatusNotImplemented || str(t, object(t, r.json(t), "error"), "code") != "not_supported" {
			t.Errorf("POST %s: %d %s", path, r.status, r.body)
		}
	}
}

func checkSharingIsStoredButGrantsNothing(t *testing.T, e *env, id string) {
	r := e.do(owner, http.MethodPatch, "/api/conversations/"+id, map[string]any{"shareAudience": "tenant", "tenantAccess": "view"})
	if r.status != http.StatusOK {
		t.Fatalf("PATCH sharing: %d %s", r.status, r.body)
	}
	conv := object(t, r.json(t), "conversation")
	if str(t, conv, "shareAudience") != "tenant" || str(t, conv, "tenantAccess") != "view" || str(t, conv, "effectiveAccess") != "owner" {
		t.Errorf("after PATCH: %v", conv)
	}
	again := object(t, e.do(owner, http.MethodGet, "/api/conversations/"+id, nil).json(t), "conversation")
	if again["shareAudience"] != "tenant" || again["tenantAccess"] != "view" {
		t.Errorf("sharing not stored: %v", again)
	}
	if r := e.do(owner, http.MethodPatch, "/api/conversations/"+id, map[string]any{"shareAudience": "everyone"}); r.status != http.StatusBadRequest {
		t.Errorf("PATCH with an unknown audience: %d", r.status)
	}
	if r := e.do(owner, http.MethodPatch, "/api/conversations/"+id, map[string]any{"title": "VRT and stamp duty"}); r.status != http.StatusOK ||
		object(t, r.json(t), "conversation")["title"] != "VRT and stamp duty" {
		t.Errorf("PATCH title: %d %s", r.status, r.body)
	}
}

// A body with a field name in the wrong case, a key twice, an unknown
// field or a control character is refused naming the field, and changes
// nothing.
func checkBodiesAreReadStrictly(t *testing.T, e *env, id string) {
	for _, body := range []string{
		`{"ShareAudience": "public"}`,
		`{"shareAudience": "public", "shareAudience": "private"}`,
		`{"sharedAudience": "public"}`,
		`{"shareAudience": "public", "title": "a\u0000b"}`,
	} {
		r := e.do(owner, http.MethodPatch, "/api/conversations/"+id, json.RawMessage(body))
		if r.status != http.StatusBadRequest || str(t, object(t, r.json(t), "error"), "code") != "invalid_request" {
			t.Errorf("PATCH %s: %d %s", body, r.status, r.body)
		}
	}
	if r := e.do(owner, http.MethodPatch, "/api/conversations/"+id, json.RawMessage(`{"ShareAudience": "public"}`)); !strings.Contains(string(r.body), "shareAudience") {
		t.Errorf("a wrong-case field is not named: %s", r.body)
	}
	conv := object(t, e.do(owner, http.MethodGet, "/api/conversations/"+id, nil).json(t), "conversation")
	if conv["shareAudience"] != "tenant" || conv["tenantAccess"] != "view" || conv["title"] != "VRT and stamp duty" {
		t.Errorf("a refused PATCH changed the conversation: %v", conv)
	}
	for _, body := range []string{`{"PathId": "` + id + `"}`, `{"pathId": "` + id + `", "path": "x"}`} {
		if r := e.do(owner, http.MethodPut, "/api/conversations/"+id+"/active-path", json.RawMessage(body)); r.status != http.StatusBadRequest {
			t.Errorf("PUT active-path %s: %d %s", body, r.status, r.body)
		}
	}
}

// The list has an active and an archived tab.
func checkArchiveMovesBetweenTabs(t *testing.T, e *env, id string) {
	listed := func(status string) map[string]any {
		for _, c := range objects(t, e.do(owner, http.MethodGet, "/api/conversations?status="+status, nil).json(t), "conversations") {
			if c["id"] == id {
				return c
			}
		}
		return nil
	}
	active := listed("active")
	if active == nil || listed("archived") != nil {
		t.Fatal("an unarchived conversation is not in the active tab only")
	}
	if strOrNull(t, active, "archivedAt") != nil || strOrNull(t, active, "lastMessageAt") == nil || str(t, active, "createdAt") == "" {
		t.Errorf("listed = %v", active)
	}
	if r := e.do(owner, http.MethodPatch, "/api/conversations/"+id, map[string]any{"archived": true}); r.status != http.StatusOK {
		t.Fatalf("PATCH archived: %d %s", r.status, r.body)
	}
	archived := listed("archived")
	if archived == nil || listed("active") != nil || strOrNull(t, archived, "archivedAt") == nil {
		t.Errorf("an archived conversation: archived tab %v, in active %v", archived, listed("active") != nil)
	}
	for _, query := range []string{"status=gone", "status=", "status=active&status=all"} {
		if r := e.do(owner, http.MethodGet, "/api/conversations?"+query, nil); r.status != http.StatusBadRequest {
			t.Errorf("%s: %d", query, r.status)
		}
	}
}

// Sharing with the tenant widens nothing: another user of the tenant gets
// 404 everywhere and an empty list.
func checkOtherUserSeesNothing(t *testing.T, e *env, id string) {
	for _, path := range []string{"", "/paths", "/active-path", "/paths/" + id + "/messages"} {
		if r := e.do(other, http.MethodGet, "/api/conversations/"+id+path, nil); r.status != http.StatusNotFound {
			t.Errorf("another user GET %s: %d %s", path, r.status, r.body)
		}
	}
	if r := e.do(other, http.MethodPatch, "/api/conversations/"+id, map[string]any{"shareAudience": "public"}); r.status != http.StatusNotFound {
		t.Errorf("another user PATCH: %d", r.status)
	}
	if list := objects(t, e.do(other, http.MethodGet, "/api/conversations?status=all", nil).json(t), "conversations"); len(list) != 0 {
		t.Errorf("another user lists %v", list)
	}
	conv := object(t, e.do(owner, http.MethodGet, "/api/conversations/"+id, nil).json(t), "conversation")
	if conv["shareAudience"] != "tenant" {
		t.Errorf("another user's PATCH changed the sharing: %v", conv)
	}
}

// The conversation list stream: a snapshot, then upsert for a new
// conversation and deleted for an erased one.
func TestConversationListStream(t *testing.T) {
	e := newEnv(t, envOptions{})
	first := e.ask("", "What is VRT?", llmtest.TextScript("A tax."))
	frames := e.openStream(owner, "/api/conversations/stream?status=active")
	snap := next(t, frames)
	var snapshot struct {
		Status        string           `json:"status"`
		Conversations []map[string]any `json:"conversations"`
	}
	if err := json.Unmarshal([]byte(snap.Data), &snapshot); err != nil || snap.Event != "snapshot" ||
		snapshot.Status != "active" || len(snapshot.Conversations) != 1 || snapshot.Conversations[0]["id"] != first {
		t.Fatalf("first event %s %s", snap.Event, snap.Data)
	}
	second := e.ask("", "What is VAT?", llmtest.TextScript("Another tax."))
	up := next(t, frames)
	if up.Event != "upsert" || !strings.Contains(up.Data, second) {
		t.Fatalf("after a new conversation: %s %s", up.Event, up.Data)
	}
	if r := e.do(owner, http.MethodDelete, "/conversations/"+first, nil); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d", r.status)
	}
	// The new conversation may be upserted again as its turn is stored (a
	// later change of the same conversation); the erasure follows.
	gone := next(t, frames)
	for gone.Event == "upsert" && strings.Contains(gone.Data, second) {
		gone = next(t, frames)
	}
	if gone.Event != "deleted" || gone.Data != `{"conversationId":"`+first+`"}` {
		t.Fatalf("after an erasure: %s %s", gone.Event, gone.Data)
	}
}

// The graph card looks nodes up by our ids; the graph page's stream has
// unnamed events with labelled nodes.
func TestGraphLookupAndStream(t *testing.T) {
	e := newEnv(t, envOptions{})
	body := e.do(owner, http.MethodGet, "/api/graph?ids=TAX:IE:VRT,TAX:IE:NOPE", nil).json(t)
	nodes := objects(t, body, "nodes")
	if len(nodes) != 1 || str(t, nodes[0], "id") != "TAX:IE:VRT" || str(t, nodes[0], "label") != "Vehicle Registration Tax" || str(t, nodes[0], "type") == "" {
		t.Fatalf("nodes = %v", nodes)
	}
	if r := e.do(owner, http.MethodGet, "/api/graph", nil); r.status != http.StatusBadRequest {
		t.Errorf("GET /api/graph without ids: %d", r.status)
	}
	// The snapshot comes in pages; the first ones may hold only edges.
	stream := e.openStream(owner, "/api/graph/stream?jurisdictions=IE&profileType=self-employed")
	var added []map[string]any
	for more := true; more && len(added) == 0; {
		f := next(t, stream)
		if f.Event != "" || f.ID == "" {
			t.Fatalf("graph stream frame has event %q, id %q: onmessage needs unnamed events", f.Event, f.ID)
		}
		var patch map[string]any
		if err := json.Unmarshal([]byte(f.Data), &patch); err != nil || patch["type"] != "graph_patch" {
			t.Fatalf("patch %s", f.Data)
		}
		added = objects(t, object(t, patch, "nodes"), "added")
		more, _ = object(t, patch, "meta")["truncated"].(bool)
	}
	if len(added) == 0 {
		t.Fatal("the snapshot patches add no nodes")
	}
	for _, n := range added {
		if str(t, n, "label") == "" || str(t, n, "type") == "" {
			t.Errorf("node without label or type: %v", n)
		}
	}
}

// With the option off every compatibility route is the JSON 404 of an
// unknown path.
func TestCompatRoutesAre404WhenOff(t *testing.T) {
	e := newEnv(t, envOptions{compatOff: true})
	for _, rt := range httpapi.CompatRoutes() {
		path := strings.NewReplacer("{id}", "6f0e1a4c-1111-4c4c-8888-123456789abc", "{pathId}", "p", "{messageId}", "m").Replace(rt.Pattern)
		r := e.do(owner, rt.Method, path, map[string]any{})
		if r.status != http.StatusNotFound || str(t, object(t, r.json(t), "error"), "code") != "not_found" {
			t.Errorf("%s %s with the option off: %d %s", rt.Method, path, r.status, r.body)
		}
	}
}
