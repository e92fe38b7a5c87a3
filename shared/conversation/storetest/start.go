package storetest

import (
	"errors"
	"testing"
	"time"

	"regintel/shared/conversation"
)

// StartTurn reserves the turn with the lease: its question is stored,
// streaming, under the next number, and the history it loads does not hold
// it. A second turn gets neither the lease nor a reservation.
func testStartReserves(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q1", AssistantText: "a1"})
	profile := conversation.Profile{PersonaType: "employee", Jurisdictions: []string{"IE"}}
	start := conversation.TurnStart{HistoryTurns: 5, LeaseFor: time.Minute,
		Reserve: &conversation.Turn{UserText: "q2", Profile: &profile}}
	st, err := s.StartTurn(userCtx, tenant, c.ID, start)
	if err != nil || st.LeaseID == "" || len(st.History) != 1 {
		t.Fatalf("StartTurn = %+v, %v", st, err)
	}
	if r := st.Reserved; r == nil || r.Number != 2 || r.UserText != "q2" || r.Status != conversation.TurnStreaming {
		t.Fatalf("reserved %+v, want turn 2 q2 streaming", r)
	}
	if _, err := s.StartTurn(userCtx, tenant, c.ID, start); !errors.Is(err, conversation.ErrTurnInProgress) {
		t.Fatalf("second StartTurn: %v, want ErrTurnInProgress", err)
	}
	loaded := mustLoad(t, s, tenant, c.ID, 5)
	if len(loaded.History) != 2 || loaded.History[1].Status != conversation.TurnStreaming ||
		loaded.Conversation.Profile == nil || loaded.Conversation.Profile.PersonaType != "employee" {
		t.Fatalf("after the refused start: %+v", loaded)
	}
}

// Nothing is reserved at the tenant's daily limit or while a context
// request is pending; the lease is taken all the same.
func testStartWithoutReservation(t *testing.T, s Store) {
	tenant := newTenant()
	reserve := &conversation.Turn{UserText: "q"}
	capped := mustCreate(t, s, tenant)
	mustAppend(t, s, tenant, capped.ID, conversation.Turn{UserText: "q", Usage: conversation.Usage{TotalTokens: 50}})
	st, err := s.StartTurn(userCtx, tenant, capped.ID, conversation.TurnStart{DailyTokenLimit: 50, Reserve: reserve})
	if err != nil || st.LeaseID == "" || st.TenantTokensToday != 50 || st.Reserved != nil {
		t.Fatalf("StartTurn at the limit = %+v, %v; want the lease, usage 50, no reservation", st, err)
	}
	st, err = s.StartTurn(userCtx, newTenant(), capped.ID, conversation.TurnStart{Reserve: reserve})
	if !errors.Is(err, conversation.ErrNotFound) || st.Reserved != nil {
		t.Fatalf("StartTurn from another tenant = %+v, %v", st, err)
	}

	waiting := mustCreate(t, s, tenant)
	mustRequest(t, s, tenant, waiting.ID)
	st, err = s.StartTurn(userCtx, tenant, waiting.ID, conversation.TurnStart{DailyTokenLimit: 1000, Reserve: reserve})
	if err != nil || st.Reserved != nil || st.Handoff == nil || st.Handoff.Pending == nil {
		t.Fatalf("StartTurn with a pending request = %+v, %v; want no reservation", st, err)
	}
	for _, id := range []string{capped.ID, waiting.ID} {
		if n := mustLoad(t, s, tenant, id, 5).Conversation.LastTurnNumber; n > 1 {
			t.Errorf("a turn was reserved: last turn %d", n)
		}
	}
}

// A retry is reserved by StartTurn too: the failed last turn goes back to
// streaming; a last turn that did not fail is not reserved.
func testStartRetries(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q1", AssistantText: "cut", Status: conversation.TurnInterrupted})
	st, err := s.StartTurn(userCtx, tenant, c.ID, conversation.TurnStart{HistoryTurns: 5, Retry: true})
	if err != nil || st.Reserved == nil || st.Reserved.Number != 1 || st.Reserved.UserText != "q1" || st.Reserved.Status != conversation.TurnStreaming {
		t.Fatalf("StartTurn retry = %+v, %v", st, err)
	}
	if err := s.FinishTurn(userCtx, tenant, c.ID, conversation.Turn{Number: 1, AssistantText: "a1", Status: conversation.TurnOK, LeaseID: st.LeaseID}, conversation.TurnFinish{}); err != nil {
		t.Fatal(err)
	}
	st, err = s.StartTurn(userCtx, tenant, c.ID, conversation.TurnStart{Retry: true})
	if err != nil || st.Reserved != nil {
		t.Fatalf("StartTurn retry of a turn that did not fail = reserved %+v, %v", st.Reserved, err)
	}
}

// StartConversation creates the conversation holding its lease, with its
// first turn reserved; at the limit it creates nothing.
func testStartConversation(t *testing.T, s Store) {
	tenant := newTenant()
	start := conversation.TurnStart{LeaseFor: time.Minute, DailyTokenLimit: 20, Reserve: &conversation.Turn{UserText: "first"}}
	profile := conversation.Profile{PersonaType: "employer", Jurisdictions: []string{"UK"}}
	st, err := s.StartConversation(userCtx, conversation.Conversation{TenantID: tenant, OwnerID: testUser, Title: "t", Profile: &profile}, start)
	if err != nil || st.Conversation.ID == "" || st.LeaseID == "" || st.Reserved == nil || st.Reserved.Number != 1 ||
		st.Conversation.Profile == nil || len(st.History) != 0 || st.Handoff == nil {
		t.Fatalf("StartConversation = %+v, %v", st, err)
	}
	id := st.Conversation.ID
	if _, err := s.StartTurn(userCtx, tenant, id, start); !errors.Is(err, conversation.ErrTurnInProgress) {
		t.Fatalf("StartTurn while the first turn streams: %v, want ErrTurnInProgress", err)
	}
	finished := conversation.Turn{Number: 1, AssistantText: "a", Status: conversation.TurnOK, Usage: conversation.Usage{TotalTokens: 20}, LeaseID: st.LeaseID}
	if err := s.FinishTurn(userCtx, tenant, id, finished, conversation.TurnFinish{}); err != nil {
		t.Fatal(err)
	}
	loaded := mustLoad(t, s, tenant, id, 5)
	if len(loaded.History) != 1 || loaded.History[0].UserText != "first" || loaded.History[0].AssistantText != "a" {
		t.Fatalf("first turn stored as %+v", loaded.History)
	}
	capped, err := s.StartConversation(userCtx, conversation.Conversation{TenantID: tenant, OwnerID: testUser}, start)
	if err != nil || capped.Conversation.ID != "" || capped.Reserved != nil || capped.TenantTokensToday != 20 {
		t.Fatalf("StartConversation at the limit = %+v, %v; want nothing created", capped, err)
	}
	list, err := s.ListConversations(userCtx, tenant, conversation.ListQuery{})
	if err != nil || len(list.Conversations) != 1 {
		t.Fatalf("conversations after the refused start: %+v, %v", list, err)
	}
}

// FinishTurn marks the supplied items the turn used.
func testFinishTouchesUsedItems(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	items, err := s.SupplyItems(userCtx, tenant, c.ID, []conversation.SuppliedItem{
		{Key: "income", Kind: conversation.KindProfileFact, Content: "50k"},
		{Key: "notes", Kind: conversation.KindText, Content: "n"}})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	n, err := s.ReserveTurn(userCtx, tenant, c.ID, conversation.Turn{UserText: "q"})
	if err != nil {
		t.Fatal(err)
	}
	finished := conversation.Turn{Number: n, AssistantText: "a", Status: conversation.TurnOK}
	if err := s.FinishTurn(userCtx, tenant, c.ID, finished, conversation.TurnFinish{ActiveNodes: []string{"X"}, UsedItems: []string{items[0].ID, "not-a-uuid"}}); err != nil {
		t.Fatal(err)
	}
	st := mustLoad(t, s, tenant, c.ID, 5)
	if len(st.Handoff.Items) != 2 {
		t.Fatalf("items %+v", st.Handoff.Items)
	}
	for _, it := range st.Handoff.Items {
		touched := it.LastUsedAt.After(items[0].LastUsedAt.Add(10 * time.Millisecond))
		if touched != (it.Key == "income") {
			t.Errorf("item %s last used %v (supplied %v); only income was used", it.Key, it.LastUsedAt, items[0].LastUsedAt)
		}
	}
}
