package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"regintel/shared/conversation"
)

// One turn at a time: a second StartTurn waits for the first to store its
// turn, give its lease back or let it expire.
func testTurnLease(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	first, err := s.StartTurn(userCtx, tenant, c.ID, conversation.TurnStart{HistoryTurns: 5, LeaseFor: time.Minute})
	if err != nil || first.LeaseID == "" || first.Conversation.ID != c.ID {
		t.Fatalf("first StartTurn = %+v, %v", first, err)
	}
	if _, err := s.StartTurn(userCtx, tenant, c.ID, conversation.TurnStart{HistoryTurns: 5, LeaseFor: time.Minute}); !errors.Is(err, conversation.ErrTurnInProgress) {
		t.Fatalf("second StartTurn while the first runs: %v, want ErrTurnInProgress", err)
	}
	other := conversation.WithOwner(context.Background(), "user-2")
	if _, err := s.StartTurn(other, tenant, c.ID, conversation.TurnStart{HistoryTurns: 5, LeaseFor: time.Minute}); !errors.Is(err, conversation.ErrNotFound) {
		t.Errorf("StartTurn by another user: %v, want ErrNotFound", err)
	}
	// Reading is not a turn: the conversation API still loads it.
	mustLoad(t, s, tenant, c.ID, 5)
	// A stale lease id gives nothing back.
	if err := s.EndTurn(userCtx, tenant, c.ID, newTenant()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.StartTurn(userCtx, tenant, c.ID, conversation.TurnStart{HistoryTurns: 5, LeaseFor: time.Minute}); !errors.Is(err, conversation.ErrTurnInProgress) {
		t.Fatalf("StartTurn after a stale EndTurn: %v, want ErrTurnInProgress", err)
	}

	// Storing the turn gives the lease back.
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q", LeaseID: first.LeaseID})
	second, err := s.StartTurn(userCtx, tenant, c.ID, conversation.TurnStart{HistoryTurns: 5, LeaseFor: time.Minute})
	if err != nil || len(second.History) != 1 {
		t.Fatalf("StartTurn after the first turn was stored: %+v, %v", second, err)
	}
	// So does EndTurn, for a turn that stores nothing.
	if err := s.EndTurn(userCtx, tenant, c.ID, second.LeaseID); err != nil {
		t.Fatal(err)
	}
	// A turn that dies holds the conversation only until its lease expires.
	if _, err := s.StartTurn(userCtx, tenant, c.ID, conversation.TurnStart{HistoryTurns: 5, LeaseFor: 100 * time.Millisecond}); err != nil {
		t.Fatalf("StartTurn after EndTurn: %v", err)
	}
	if _, err := s.StartTurn(userCtx, tenant, c.ID, conversation.TurnStart{HistoryTurns: 5, LeaseFor: time.Minute}); !errors.Is(err, conversation.ErrTurnInProgress) {
		t.Fatalf("StartTurn before the lease expired: %v, want ErrTurnInProgress", err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := s.StartTurn(userCtx, tenant, c.ID, conversation.TurnStart{HistoryTurns: 5, LeaseFor: time.Minute}); err != nil {
		t.Fatalf("StartTurn after the lease expired: %v", err)
	}
}

// Every stored turn's tokens count towards its tenant's usage of the day.
func testTenantUsage(t *testing.T, s Store) {
	tenant := newTenant()
	if n, err := s.TenantTokensToday(userCtx, tenant); err != nil || n != 0 {
		t.Fatalf("usage of a new tenant: %d, %v", n, err)
	}
	a, b := mustCreate(t, s, tenant), mustCreate(t, s, tenant)
	mustAppend(t, s, tenant, a.ID, conversation.Turn{UserText: "q", Usage: conversation.Usage{InputTokens: 7, OutputTokens: 3, TotalTokens: 10}})
	mustAppend(t, s, tenant, b.ID, conversation.Turn{UserText: "q", Usage: conversation.Usage{TotalTokens: 5}})
	if n, err := s.TenantTokensToday(userCtx, tenant); err != nil || n != 15 {
		t.Errorf("usage after two turns: %d, %v; want 15", n, err)
	}
	if n, err := s.TenantTokensToday(userCtx, newTenant()); err != nil || n != 0 {
		t.Errorf("another tenant's usage: %d, %v; want 0", n, err)
	}
	st, err := s.StartTurn(userCtx, tenant, a.ID, conversation.TurnStart{HistoryTurns: 5, LeaseFor: time.Minute, DailyTokenLimit: 1000})
	if err != nil || st.TenantTokensToday != 15 {
		t.Errorf("StartTurn reports usage %d (%v), want 15", st.TenantTokensToday, err)
	}
}

// A streamed turn holds the lease from its start to its finish; finishing
// it gives the lease back and counts its tokens (its reservation counts
// none).
func testFinishEndsTheTurn(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	start := conversation.TurnStart{HistoryTurns: 5, LeaseFor: time.Minute}
	st, err := s.StartTurn(userCtx, tenant, c.ID, start)
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.ReserveTurn(userCtx, tenant, c.ID, conversation.Turn{UserText: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if used, err := s.TenantTokensToday(userCtx, tenant); err != nil || used != 0 {
		t.Fatalf("usage after the reservation: %d, %v; want 0", used, err)
	}
	if _, err := s.StartTurn(userCtx, tenant, c.ID, start); !errors.Is(err, conversation.ErrTurnInProgress) {
		t.Fatalf("StartTurn while the turn streams: %v, want ErrTurnInProgress", err)
	}
	finished := conversation.Turn{Number: n, AssistantText: "a", Status: conversation.TurnOK,
		Usage: conversation.Usage{InputTokens: 8, OutputTokens: 4, TotalTokens: 12}, LeaseID: st.LeaseID}
	if err := s.FinishTurn(userCtx, tenant, c.ID, finished, conversation.TurnFinish{}); err != nil {
		t.Fatal(err)
	}
	if used, err := s.TenantTokensToday(userCtx, tenant); err != nil || used != 12 {
		t.Errorf("usage after the finish: %d, %v; want 12", used, err)
	}
	if _, err := s.StartTurn(userCtx, tenant, c.ID, start); err != nil {
		t.Errorf("StartTurn after the finish: %v", err)
	}
}
