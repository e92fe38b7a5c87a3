package storetest

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"regintel/shared/conversation"
)

func adminCreate(t *testing.T, s Store, tenantID, owner string) conversation.Conversation {
	t.Helper()
	c, err := s.CreateConversation(userCtx, conversation.Conversation{TenantID: tenantID, OwnerID: owner, Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// listAll walks every page of size pageSize and returns the ids in order.
func listAll(t *testing.T, s Store, tenantID string, q conversation.ListQuery) []conversation.Conversation {
	t.Helper()
	return listAllAs(t, s, userCtx, tenantID, q)
}

// listAllAs is listAll for the owner in ctx.
func listAllAs(t *testing.T, s Store, ctx context.Context, tenantID string, q conversation.ListQuery) []conversation.Conversation {
	t.Helper()
	var all []conversation.Conversation
	for pages := 0; ; pages++ {
		if pages > 50 {
			t.Fatal("pagination does not end")
		}
		page, err := s.ListConversations(ctx, tenantID, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Conversations) > q.PageSize() {
			t.Fatalf("page of %d, limit %d", len(page.Conversations), q.PageSize())
		}
		all = append(all, page.Conversations...)
		if page.NextCursor == "" {
			return all
		}
		q.Cursor = page.NextCursor
	}
}

func ids(cs []conversation.Conversation) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

func testAdminListPages(t *testing.T, s Store) {
	tenant := newTenant()
	var made []conversation.Conversation
	for range 7 {
		made = append(made, adminCreate(t, s, tenant, testUser))
	}
	// A turn is activity: these two move to the top, the later one first.
	for _, c := range []conversation.Conversation{made[1], made[4]} {
		if _, err := s.AppendTurn(userCtx, tenant, c.ID, conversation.Turn{UserText: "q"}); err != nil {
			t.Fatal(err)
		}
	}

	paged := listAll(t, s, tenant, conversation.ListQuery{Limit: 3})
	whole := listAll(t, s, tenant, conversation.ListQuery{Limit: conversation.MaxPageSize})
	if !slices.Equal(ids(paged), ids(whole)) || len(whole) != 7 {
		t.Fatalf("pages of 3 list %v, one page lists %v", ids(paged), ids(whole))
	}
	newestFirst := slices.IsSortedFunc(whole, func(a, b conversation.Conversation) int {
		return -cmp.Or(a.UpdatedAt.Compare(b.UpdatedAt), strings.Compare(a.ID, b.ID))
	})
	if !newestFirst {
		t.Errorf("not newest first by (updatedAt, id): %v", whole)
	}
	top := ids(whole[:2])
	slices.Sort(top)
	want := []string{made[1].ID, made[4].ID}
	slices.Sort(want)
	if !slices.Equal(top, want) {
		t.Errorf("the conversations with turns are not first: %v", ids(whole))
	}

	if _, err := s.ListConversations(userCtx, tenant, conversation.ListQuery{Cursor: "%%%"}); !errors.Is(err, conversation.ErrInvalidCursor) {
		t.Errorf("garbage cursor: %v, want ErrInvalidCursor", err)
	}
	badID := conversation.Cursor{UpdatedAt: time.Now(), ID: "nope"}.Encode()
	if _, err := s.ListConversations(userCtx, tenant, conversation.ListQuery{Cursor: badID}); !errors.Is(err, conversation.ErrInvalidCursor) {
		t.Errorf("cursor with a bad id: %v, want ErrInvalidCursor", err)
	}
}

func testAdminListFilters(t *testing.T, s Store) {
	ctx := userCtx
	tenant := newTenant()
	mine := adminCreate(t, s, tenant, testUser)
	archived := adminCreate(t, s, tenant, testUser)
	theirs := adminCreate(t, s, tenant, "them")
	adminCreate(t, s, newTenant(), testUser)
	if _, err := s.UpdateConversation(ctx, tenant, archived.ID, conversation.Update{Archived: new(true)}); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		user string
		q    conversation.ListQuery
		want []string
	}{
		// A list shows the caller's own conversations, never the tenant's.
		"own":          {testUser, conversation.ListQuery{}, []string{mine.ID, archived.ID}},
		"archived":     {testUser, conversation.ListQuery{Archived: new(true)}, []string{archived.ID}},
		"not archived": {testUser, conversation.ListQuery{Archived: new(false)}, []string{mine.ID}},
		"another user": {"them", conversation.ListQuery{}, []string{theirs.ID}},
		"no such user": {"nobody", conversation.ListQuery{}, nil},
	} {
		got := ids(listAllAs(t, s, conversation.WithOwner(context.Background(), tc.user), tenant, tc.q))
		slices.Sort(got)
		slices.Sort(tc.want)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: listed %v, want %v", name, got, tc.want)
		}
	}
	if _, err := s.ListConversations(context.Background(), tenant, conversation.ListQuery{}); !errors.Is(err, conversation.ErrNoOwner) {
		t.Errorf("list without an owner: %v, want ErrNoOwner", err)
	}
}

func testAdminLifecycle(t *testing.T, s Store) {
	tenant := newTenant()
	c, waiting := seedAdminConversation(t, s, tenant)
	d := checkAdminDetail(t, s, tenant, c.ID, waiting.ID)
	checkAdminUpdate(t, s, tenant, c.ID, d)
	checkAdminExportAndDelete(t, s, tenant, c.ID)
}

// seedAdminConversation creates a conversation with two turns, an active
// node, a pending and an expired request and a supplied item; it returns
// the conversation and the pending request.
func seedAdminConversation(t *testing.T, s Store, tenant string) (conversation.Conversation, conversation.ContextRequest) {
	t.Helper()
	ctx := userCtx
	c := adminCreate(t, s, tenant, testUser)
	for _, q := range []string{"first", "second"} {
		if _, err := s.AppendTurn(ctx, tenant, c.ID, conversation.Turn{UserText: q, Metadata: conversation.TurnMetadata{QueryComposition: "chat"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.MergeActiveNodes(ctx, tenant, c.ID, []string{"TAX:IE:VAT"}, 0); err != nil {
		t.Fatal(err)
	}
	item := []conversation.RequestedItem{{Key: "income", Description: "income", Kind: conversation.KindProfileFact, Required: true}}
	waiting, err := s.CreateContextRequest(ctx, conversation.ContextRequest{TenantID: tenant, ConversationID: c.ID,
		Items: item, Question: "q", ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateContextRequest(ctx, conversation.ContextRequest{TenantID: tenant, ConversationID: c.ID,
		Items: item, Question: "q", ExpiresAt: time.Now().Add(-time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SupplyItems(ctx, tenant, c.ID, []conversation.SuppliedItem{{Key: "income", Kind: conversation.KindText, Content: "42000"}}); err != nil {
		t.Fatal(err)
	}
	return c, waiting
}

// checkAdminDetail reads the seeded conversation back: only the unexpired
// request is pending.
func checkAdminDetail(t *testing.T, s Store, tenant, id, waitingID string) conversation.Detail {
	t.Helper()
	d, err := s.GetConversation(userCtx, tenant, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Turns) != 2 || d.Turns[0].UserText != "first" || d.Turns[1].Metadata.QueryComposition != "chat" {
		t.Errorf("turns = %+v", d.Turns)
	}
	if !slices.Equal(d.ActiveNodeIDs, []string{"TAX:IE:VAT"}) {
		t.Errorf("active nodes = %v", d.ActiveNodeIDs)
	}
	if len(d.PendingRequests) != 1 || d.PendingRequests[0].ID != waitingID {
		t.Errorf("pending = %+v, want only the unexpired %s", d.PendingRequests, waitingID)
	}
	if len(d.SuppliedItems) != 1 || d.SuppliedItems[0].Content != "42000" {
		t.Errorf("items = %+v", d.SuppliedItems)
	}
	return d
}

// checkAdminUpdate renames the conversation read as d and refuses empty
// and overlong updates.
func checkAdminUpdate(t *testing.T, s Store, tenant, id string, d conversation.Detail) {
	t.Helper()
	updated, err := s.UpdateConversation(userCtx, tenant, id, conversation.Update{Title: new("  Renamed ")})
	// A rename is not activity: updated_at stays.
	if err != nil || updated.Title != "Renamed" || updated.Archived || !updated.UpdatedAt.Equal(d.Conversation.UpdatedAt) {
		t.Errorf("rename = %+v, %v", updated, err)
	}
	for _, bad := range []conversation.Update{{}, {Title: new(strings.Repeat("x", conversation.MaxTitleRunes+1))}} {
		if _, err := s.UpdateConversation(userCtx, tenant, id, bad); !errors.Is(err, conversation.ErrInvalidUpdate) {
			t.Errorf("update %+v: %v, want ErrInvalidUpdate", bad, err)
		}
	}
}

// checkAdminExportAndDelete exports the renamed conversation with all it
// holds, then erases it and counts what went.
func checkAdminExportAndDelete(t *testing.T, s Store, tenant, id string) {
	t.Helper()
	ctx := userCtx
	export, err := s.ExportConversation(ctx, tenant, id)
	if err != nil {
		t.Fatal(err)
	}
	if export.Conversation.Title != "Renamed" || len(export.Turns) != 2 || export.Context == nil ||
		len(export.ContextRequests) != 2 || len(export.SuppliedItems) != 1 {
		t.Errorf("export = %+v", export)
	}

	erased, err := s.DeleteConversation(ctx, tenant, id)
	if err != nil {
		t.Fatal(err)
	}
	want := conversation.Erased{Conversations: 1, Turns: 2, Contexts: 1, ContextRequests: 2, SuppliedItems: 1}
	if erased != want {
		t.Errorf("erased %+v, want %+v", erased, want)
	}
	if _, err := s.GetConversation(ctx, tenant, id); !errors.Is(err, conversation.ErrNotFound) {
		t.Errorf("get after delete: %v", err)
	}
	if _, err := s.LoadTurnState(ctx, tenant, id, 5); !errors.Is(err, conversation.ErrNotFound) {
		t.Errorf("load after delete: %v", err)
	}
	if _, err := s.DeleteConversation(ctx, tenant, id); !errors.Is(err, conversation.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
}

func testAdminTenantIsolation(t *testing.T, s Store) {
	ctx := userCtx
	owner := newTenant()
	c := adminCreate(t, s, owner, testUser)
	other := newTenant()
	if page, err := s.ListConversations(ctx, other, conversation.ListQuery{}); err != nil || len(page.Conversations) != 0 {
		t.Errorf("other tenant lists %+v, %v", page, err)
	}
	for _, id := range []string{c.ID, uuid.NewString(), "not-a-uuid"} {
		checks := map[string]error{}
		_, checks["get"] = s.GetConversation(ctx, other, id)
		_, checks["update"] = s.UpdateConversation(ctx, other, id, conversation.Update{Archived: new(true)})
		_, checks["export"] = s.ExportConversation(ctx, other, id)
		_, checks["delete"] = s.DeleteConversation(ctx, other, id)
		for op, err := range checks {
			if !errors.Is(err, conversation.ErrNotFound) {
				t.Errorf("%s %s from another tenant: %v, want ErrNotFound", op, id, err)
			}
		}
	}
	d, err := s.GetConversation(ctx, owner, c.ID)
	if err != nil || d.Conversation.Archived {
		t.Errorf("owner's conversation after the other tenant's attempts: %+v, %v", d.Conversation, err)
	}
}
