package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"regintel/shared/conversation"
)

func mustRequest(t *testing.T, s Store, tenantID, conversationID string) conversation.ContextRequest {
	t.Helper()
	r, err := s.CreateContextRequest(userCtx, conversation.ContextRequest{
		TenantID: tenantID, ConversationID: conversationID, Question: "Am I due a refund?",
		Items: []conversation.RequestedItem{
			{Key: "annual_income", Description: "Gross income for 2024", Kind: conversation.KindProfileFact, Required: true},
			{Key: "p60", Description: "The P60 text", Kind: conversation.KindDocument},
		},
		ExpiresAt: time.Now().Add(15 * time.Minute),
	})
	if err != nil {
		t.Fatalf("CreateContextRequest: %v", err)
	}
	return r
}

func testRequestLifecycle(t *testing.T, s Store) {
	ctx := userCtx
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	r := mustRequest(t, s, tenant, c.ID)
	if uuid.Validate(r.ID) != nil || r.Status != conversation.RequestPending || r.ResolvedAt != nil || r.CreatedAt.IsZero() {
		t.Fatalf("created request = %+v", r)
	}
	if len(r.Items) != 2 || r.Items[0].Key != "annual_income" || !r.Items[0].Required || r.Items[1].Required {
		t.Fatalf("items = %+v", r.Items)
	}
	got, err := s.GetContextRequest(ctx, tenant, c.ID, r.ID)
	if err != nil || got.Question != r.Question || !got.ExpiresAt.Equal(r.ExpiresAt.Truncate(time.Microsecond)) && !got.ExpiresAt.Equal(r.ExpiresAt) {
		t.Fatalf("GetContextRequest = %+v, %v", got, err)
	}
	st, err := s.LoadHandoffState(ctx, tenant, c.ID)
	if err != nil || st.Pending == nil || st.Pending.ID != r.ID || len(st.Items) != 0 {
		t.Fatalf("LoadHandoffState = %+v, %v", st, err)
	}
	resolved, err := s.ResolveContextRequest(ctx, tenant, c.ID, r.ID, conversation.RequestSkipped)
	if err != nil || resolved.Status != conversation.RequestSkipped || resolved.ResolvedAt == nil {
		t.Fatalf("ResolveContextRequest = %+v, %v", resolved, err)
	}
	if st, err = s.LoadHandoffState(ctx, tenant, c.ID); err != nil || st.Pending != nil {
		t.Fatalf("after skip, pending = %+v, %v", st.Pending, err)
	}
	if _, err := s.ResolveContextRequest(ctx, tenant, c.ID, r.ID, conversation.RequestFulfilled); !errors.Is(err, conversation.ErrRequestNotPending) {
		t.Fatalf("second resolve: %v, want ErrRequestNotPending", err)
	}
	if _, err := s.ResolveContextRequest(ctx, tenant, c.ID, r.ID, conversation.RequestPending); err == nil {
		t.Fatal("resolving back to pending was accepted")
	}
	second := mustRequest(t, s, tenant, c.ID)
	list, err := s.ListContextRequests(ctx, tenant, c.ID)
	if err != nil || len(list) != 2 || list[0].ID != r.ID || list[1].ID != second.ID {
		t.Fatalf("ListContextRequests = %+v, %v", list, err)
	}
}

func testRequestIsolation(t *testing.T, s Store) {
	ctx := userCtx
	tenant, other := newTenant(), newTenant()
	c := mustCreate(t, s, tenant)
	otherConv := mustCreate(t, s, tenant)
	r := mustRequest(t, s, tenant, c.ID)

	if _, err := s.GetContextRequest(ctx, other, c.ID, r.ID); !errors.Is(err, conversation.ErrRequestNotFound) {
		t.Errorf("other tenant get: %v", err)
	}
	if _, err := s.GetContextRequest(ctx, tenant, otherConv.ID, r.ID); !errors.Is(err, conversation.ErrRequestNotFound) {
		t.Errorf("other conversation get: %v", err)
	}
	if _, err := s.GetContextRequest(ctx, tenant, c.ID, "not-a-uuid"); !errors.Is(err, conversation.ErrRequestNotFound) {
		t.Errorf("malformed request id: %v", err)
	}
	if _, err := s.ResolveContextRequest(ctx, other, c.ID, r.ID, conversation.RequestFulfilled); !errors.Is(err, conversation.ErrRequestNotFound) {
		t.Errorf("other tenant resolve: %v", err)
	}
	if _, err := s.CreateContextRequest(ctx, conversation.ContextRequest{TenantID: other, ConversationID: c.ID, ExpiresAt: time.Now().Add(time.Minute)}); !errors.Is(err, conversation.ErrNotFound) {
		t.Errorf("create under other tenant: %v", err)
	}
	if _, err := s.SupplyItems(ctx, other, c.ID, []conversation.SuppliedItem{{Key: "k", Kind: conversation.KindText, Content: "x"}}); !errors.Is(err, conversation.ErrNotFound) {
		t.Errorf("supply under other tenant: %v", err)
	}
	if st, err := s.LoadHandoffState(ctx, tenant, otherConv.ID); err != nil || st.Pending != nil {
		t.Errorf("other conversation sees the pending request: %+v, %v", st, err)
	}
	if got, err := s.GetContextRequest(ctx, tenant, c.ID, r.ID); err != nil || got.Status != conversation.RequestPending {
		t.Errorf("request changed by other tenant: %+v, %v", got, err)
	}
}

func testConcurrentResolve(t *testing.T, s Store) {
	ctx := userCtx
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	r := mustRequest(t, s, tenant, c.ID)
	const callers = 20
	var wg sync.WaitGroup
	errs := make([]error, callers)
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.ResolveContextRequest(ctx, tenant, c.ID, r.ID, conversation.RequestFulfilled)
		}()
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, conversation.ErrRequestNotPending):
			t.Errorf("caller %d: %v", i, err)
		}
	}
	if won != 1 {
		t.Fatalf("%d callers fulfilled the request, want exactly 1", won)
	}
}

func testSuppliedItems(t *testing.T, s Store) {
	ctx := userCtx
	tenant, other := newTenant(), newTenant()
	c := mustCreate(t, s, tenant)
	r := mustRequest(t, s, tenant, c.ID)
	first, err := s.SupplyItems(ctx, tenant, c.ID, []conversation.SuppliedItem{
		{RequestID: r.ID, Key: "annual_income", Kind: conversation.KindProfileFact, Content: "EUR 52,000"},
		{Key: "note", Kind: conversation.KindText, Content: "Married, jointly assessed", Redacted: true},
	})
	if err != nil || len(first) != 2 {
		t.Fatalf("SupplyItems: %+v, %v", first, err)
	}
	if first[0].Key != "annual_income" || first[0].RequestID != r.ID || uuid.Validate(first[0].ID) != nil || first[1].RequestID != "" || !first[1].Redacted {
		t.Fatalf("supplied = %+v", first)
	}
	replaced, err := s.SupplyItems(ctx, tenant, c.ID, []conversation.SuppliedItem{{Key: "annual_income", Kind: conversation.KindProfileFact, Content: "EUR 55,000"}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.LoadHandoffState(ctx, tenant, c.ID)
	if err != nil || len(st.Items) != 2 {
		t.Fatalf("items after replace = %+v, %v", st.Items, err)
	}
	byKey := map[string]conversation.SuppliedItem{}
	for _, it := range st.Items {
		byKey[it.Key] = it
	}
	if byKey["annual_income"].Content != "EUR 55,000" || byKey["annual_income"].ID != replaced[0].ID {
		t.Fatalf("replacement not stored: %+v", st.Items)
	}
	if err := s.TouchSuppliedItems(ctx, tenant, c.ID, []string{first[1].ID}); err != nil {
		t.Fatal(err)
	}
	if st, _ = s.LoadHandoffState(ctx, tenant, c.ID); !st.Items[0].LastUsedAt.After(first[1].LastUsedAt) && !st.Items[1].LastUsedAt.After(first[1].LastUsedAt) {
		t.Errorf("touch did not move last_used_at: %+v", st.Items)
	}

	if err := s.DeleteSuppliedItem(ctx, other, c.ID, first[1].ID); !errors.Is(err, conversation.ErrItemNotFound) {
		t.Errorf("other tenant delete: %v", err)
	}
	if err := s.DeleteSuppliedItem(ctx, tenant, c.ID, first[1].ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSuppliedItem(ctx, tenant, c.ID, first[1].ID); !errors.Is(err, conversation.ErrItemNotFound) {
		t.Errorf("second delete: %v", err)
	}
	if st, _ = s.LoadHandoffState(ctx, tenant, c.ID); len(st.Items) != 1 || st.Items[0].Key != "annual_income" {
		t.Fatalf("items after delete = %+v", st.Items)
	}
	if _, err := s.SupplyItems(ctx, tenant, c.ID, []conversation.SuppliedItem{{Key: "x", Kind: "video", Content: "?"}}); err == nil {
		t.Error("an unknown kind was accepted")
	}
}

// Clients supplying the same key at once leave exactly one item (ten
// rounds of twenty, so a race between replace and insert shows).
func testConcurrentSupplySameKey(t *testing.T, s Store) {
	ctx := userCtx
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	for round := 0; round < 10; round++ {
		key := fmt.Sprintf("employer_%d", round)
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make(chan error, 20)
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, err := s.SupplyItems(ctx, tenant, c.ID, []conversation.SuppliedItem{{Key: key, Kind: conversation.KindText, Content: fmt.Sprintf("employer %d", i)}})
				errs <- err
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	st, err := s.LoadHandoffState(ctx, tenant, c.ID)
	if err != nil || len(st.Items) != 10 {
		t.Fatalf("items after ten rounds of 20 concurrent supplies of one key = %d, want 10 (%v)", len(st.Items), err)
	}
}

// LoadTurnState brings the pending request and the supplied items along, so
// a turn needs a single read before it can stream.
func testLoadTurnStateCarriesHandoff(t *testing.T, s Store) {
	ctx := userCtx
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	r, err := s.CreateContextRequest(ctx, conversation.ContextRequest{TenantID: tenant, ConversationID: c.ID, Question: "q",
		Items: []conversation.RequestedItem{{Key: "income", Kind: conversation.KindProfileFact, Required: true}}, ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SupplyItems(ctx, tenant, c.ID, []conversation.SuppliedItem{{Key: "note", Kind: conversation.KindText, Content: "x"}}); err != nil {
		t.Fatal(err)
	}
	st, err := s.LoadTurnState(ctx, tenant, c.ID, 5)
	if err != nil || st.HandoffErr != nil || st.Handoff == nil {
		t.Fatalf("state %+v err %v", st, err)
	}
	if st.Handoff.Pending == nil || st.Handoff.Pending.ID != r.ID || len(st.Handoff.Items) != 1 || st.Handoff.Items[0].Key != "note" {
		t.Fatalf("handoff = %+v", st.Handoff)
	}
	if st.Handoff.Pending.TenantID != tenant || st.Handoff.Items[0].TenantID != tenant ||
		st.Handoff.Pending.ConversationID != c.ID || st.Handoff.Items[0].ConversationID != c.ID {
		t.Errorf("handoff rows not scoped to the conversation: pending %+v, item %+v", st.Handoff.Pending, st.Handoff.Items[0])
	}

	// Once resolved, the request is no longer pending for the next turn.
	if _, err := s.ResolveContextRequest(ctx, tenant, c.ID, r.ID, conversation.RequestFulfilled); err != nil {
		t.Fatal(err)
	}
	if st, err = s.LoadTurnState(ctx, tenant, c.ID, 5); err != nil || st.Handoff == nil || st.Handoff.Pending != nil || len(st.Handoff.Items) != 1 {
		t.Fatalf("after fulfilling: handoff %+v, err %v", st.Handoff, err)
	}
}
