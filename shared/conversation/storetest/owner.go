package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"regintel/shared/conversation"
)

// A conversation belongs to the user who started it: another user of the
// same tenant gets exactly what a missing id gets, and changes nothing.
func testOwnerIsolation(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q1", AssistantText: "a1"})
	mustMerge(t, s, tenant, c.ID, []string{"TAX:IE:VAT"}, 3)
	req, err := s.CreateContextRequest(userCtx, conversation.ContextRequest{TenantID: tenant, ConversationID: c.ID,
		Items: []conversation.RequestedItem{{Key: "income", Kind: conversation.KindText}}, ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	items, err := s.SupplyItems(userCtx, tenant, c.ID, []conversation.SuppliedItem{{Key: "age", Kind: conversation.KindText, Content: "40"}})
	if err != nil {
		t.Fatal(err)
	}

	checkAnotherUserIsRefused(t, s, tenant, c.ID, req.ID, items[0].ID)

	// The owner's conversation is as it was.
	d, err := s.GetConversation(userCtx, tenant, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Conversation.Title != c.Title || len(d.Turns) != 1 || !slices.Equal(d.ActiveNodeIDs, []string{"TAX:IE:VAT"}) ||
		len(d.PendingRequests) != 1 || len(d.SuppliedItems) != 1 || d.SuppliedItems[0].Content != "40" ||
		!d.SuppliedItems[0].LastUsedAt.Equal(items[0].LastUsedAt) {
		t.Errorf("owner's conversation after another user's attempts: %+v", d)
	}
}

// checkAnotherUserIsRefused makes every call on the conversation as
// another user of the same tenant: each finds nothing and changes nothing.
func checkAnotherUserIsRefused(t *testing.T, s Store, tenant, id, requestID, itemID string) {
	t.Helper()
	other := conversation.WithOwner(context.Background(), "user-2")
	notFound := map[string]error{}
	_, notFound["LoadTurnState"] = s.LoadTurnState(other, tenant, id, 5)
	_, notFound["AppendTurn"] = s.AppendTurn(other, tenant, id, conversation.Turn{UserText: "intrusion"})
	notFound["MergeActiveNodes"] = s.MergeActiveNodes(other, tenant, id, []string{"X:Y:Z"}, 3)
	_, notFound["GetConversation"] = s.GetConversation(other, tenant, id)
	_, notFound["UpdateConversation"] = s.UpdateConversation(other, tenant, id, conversation.Update{Title: new("mine now")})
	_, notFound["ExportConversation"] = s.ExportConversation(other, tenant, id)
	_, notFound["DeleteConversation"] = s.DeleteConversation(other, tenant, id)
	_, notFound["CreateContextRequest"] = s.CreateContextRequest(other, conversation.ContextRequest{TenantID: tenant, ConversationID: id, ExpiresAt: time.Now().Add(time.Hour)})
	_, notFound["SupplyItems"] = s.SupplyItems(other, tenant, id, []conversation.SuppliedItem{{Key: "age", Kind: conversation.KindText, Content: "99"}})
	for op, err := range notFound {
		if !errors.Is(err, conversation.ErrNotFound) {
			t.Errorf("%s by another user: %v, want ErrNotFound", op, err)
		}
	}
	requestNotFound := map[string]error{}
	_, requestNotFound["GetContextRequest"] = s.GetContextRequest(other, tenant, id, requestID)
	_, requestNotFound["ResolveContextRequest"] = s.ResolveContextRequest(other, tenant, id, requestID, conversation.RequestSkipped)
	for op, err := range requestNotFound {
		if !errors.Is(err, conversation.ErrRequestNotFound) {
			t.Errorf("%s by another user: %v, want ErrRequestNotFound", op, err)
		}
	}
	if err := s.DeleteSuppliedItem(other, tenant, id, itemID); !errors.Is(err, conversation.ErrItemNotFound) {
		t.Errorf("DeleteSuppliedItem by another user: %v, want ErrItemNotFound", err)
	}
	if listed, err := s.ListContextRequests(other, tenant, id); len(listed) != 0 {
		t.Errorf("ListContextRequests by another user = %+v, %v; want nothing", listed, err)
	}
	if state, err := s.LoadHandoffState(other, tenant, id); err == nil && (state.Pending != nil || len(state.Items) != 0) {
		t.Errorf("LoadHandoffState by another user = %+v", state)
	}
	_ = s.TouchSuppliedItems(other, tenant, id, []string{itemID})
}

// A call that names no owner is refused, never served tenant-wide.
func testNoOwner(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	anyone := context.Background()
	refused := map[string]error{}
	_, refused["LoadTurnState"] = s.LoadTurnState(anyone, tenant, c.ID, 5)
	_, refused["AppendTurn"] = s.AppendTurn(anyone, tenant, c.ID, conversation.Turn{UserText: "q"})
	_, refused["GetConversation"] = s.GetConversation(anyone, tenant, c.ID)
	_, refused["DeleteConversation"] = s.DeleteConversation(anyone, tenant, c.ID)
	_, refused["CreateConversation"] = s.CreateConversation(anyone, conversation.Conversation{TenantID: tenant})
	for op, err := range refused {
		if !errors.Is(err, conversation.ErrNoOwner) {
			t.Errorf("%s without an owner: %v, want ErrNoOwner", op, err)
		}
	}
	if _, err := s.GetConversation(userCtx, tenant, c.ID); err != nil {
		t.Errorf("the conversation after calls without an owner: %v", err)
	}
}
