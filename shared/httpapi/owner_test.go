package httpapi_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"regintel/shared/llm/llmtest"
)

// asUser sends a JSON request as a user of tenant-a.
func (e *env) asUser(user, method, path string, body any) chatResponse {
	e.t.Helper()
	var raw string
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			e.t.Fatal(err)
		}
		raw = string(b)
	}
	req, err := http.NewRequest(method, e.server.URL+path, strings.NewReader(raw))
	if err != nil {
		e.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("X-Tenant-Id", "tenant-a")
	req.Header.Set("X-User-Id", user)
	return e.send(req)
}

// A conversation belongs to the user who started it: another user of the
// same tenant gets, on every route, the answer a missing id gets, and
// nothing changes.
func TestAnotherUsersConversationIsNotFound(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		e := newEnv(t, envOptions{postgres: postgres})
		e.llm.SetDefault(llmtest.TextScript("VAT is 23% in Ireland."))
		first := e.asUser("user-a", http.MethodPost, "/chat", map[string]any{"message": "What is VAT?",
			"contextSupply": map[string]any{"items": []map[string]any{{"key": "occupation", "kind": "profile_fact", "content": "carpenter"}}}})
		if first.Status != http.StatusOK {
			t.Fatalf("first turn: %d %s", first.Status, first.Body)
		}
		convID := *first.metadata(t).ConversationID
		before := e.export(convID)
		if len(before.SuppliedItems) != 1 {
			t.Fatalf("supplied items: %+v", before.SuppliedItems)
		}
		itemID := before.SuppliedItems[0].ID
		modelCalls := len(e.llm.Requests())

		checkEveryRouteAsMissing(t, e, convID, itemID)

		if ids := conversationIDsOf(e, "user-b"); len(ids) != 0 {
			t.Errorf("another user lists %v", ids)
		}
		if calls := len(e.llm.Requests()); calls != modelCalls {
			t.Errorf("the model was called %d times for another user", calls-modelCalls)
		}
		after := e.export(convID)
		if !reflect.DeepEqual(after.Conversation, before.Conversation) || len(after.Turns) != len(before.Turns) ||
			!reflect.DeepEqual(after.SuppliedItems, before.SuppliedItems) || !reflect.DeepEqual(after.Context, before.Context) {
			t.Errorf("the conversation changed:\nbefore %+v\nafter  %+v", before, after)
		}
	})
}

// checkEveryRouteAsMissing: user-b gets, on every route of user-a's
// conversation convID, the answer a missing id gets, a 404.
func checkEveryRouteAsMissing(t *testing.T, e *env, convID, itemID string) {
	t.Helper()
	requestID := uuid.NewString()
	routes := []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, "/conversations/{id}", nil},
		{http.MethodGet, "/conversations/{id}/export", nil},
		{http.MethodPatch, "/conversations/{id}", map[string]any{"title": "taken over", "archived": true}},
		{http.MethodPost, "/conversations/{id}/context-requests/" + requestID, map[string]any{"items": []map[string]any{{"key": "occupation", "content": "spy"}}}},
		{http.MethodDelete, "/conversations/{id}/context-items/" + itemID, nil},
		{http.MethodPost, "/chat", map[string]any{"conversationId": "{id}", "message": "What did I ask before?"}},
		{http.MethodDelete, "/conversations/{id}", nil},
	}
	missing := uuid.NewString()
	for _, r := range routes {
		withID := func(id string) (string, any) {
			body := r.body
			if m, ok := body.(map[string]any); ok && m["conversationId"] == "{id}" {
				body = map[string]any{"conversationId": id, "message": m["message"]}
			}
			return strings.ReplaceAll(r.path, "{id}", id), body
		}
		path, body := withID(convID)
		got := e.asUser("user-b", r.method, path, body)
		path, body = withID(missing)
		want := e.asUser("user-b", r.method, path, body)
		if got.Status != http.StatusNotFound || got.Status != want.Status || got.Body != want.Body {
			t.Errorf("%s %s by another user: %d %s; a missing id: %d %s", r.method, r.path, got.Status, got.Body, want.Status, want.Body)
		}
	}
}

// conversationIDsOf lists tenant-a's conversations as user.
func conversationIDsOf(e *env, user string) []string {
	e.t.Helper()
	resp := e.asUser(user, http.MethodGet, "/conversations?limit=100", nil)
	var page struct {
		Conversations []struct{ ID string }
	}
	if resp.Status != http.StatusOK {
		e.t.Fatalf("list: %d %s", resp.Status, resp.Body)
	}
	if err := json.Unmarshal([]byte(resp.Body), &page); err != nil {
		e.t.Fatal(err)
	}
	var ids []string
	for _, c := range page.Conversations {
		ids = append(ids, c.ID)
	}
	return ids
}
