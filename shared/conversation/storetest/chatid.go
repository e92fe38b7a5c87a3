package storetest

import (
	"errors"
	"testing"
	"time"

	"regintel/shared/conversation"
)

// A conversation created under an id in use in another tenant is
// ErrIDTaken, and the other tenant's conversation is untouched.
func testStartUnderTakenID(t *testing.T, s StreamStore) {
	tenant := newTenant()
	_, id := startStreaming(t, s, tenant)
	_, err := s.StartConversation(userCtx, conversation.Conversation{ID: id, TenantID: newTenant(), OwnerID: testUser, Title: "x"},
		conversation.TurnStart{Reserve: &conversation.Turn{UserText: "q"}})
	if !errors.Is(err, conversation.ErrIDTaken) {
		t.Fatalf("StartConversation under a taken id: %v, want ErrIDTaken", err)
	}
	if st := mustLoad(t, s, tenant, id, 5); st.Conversation.Title != "t" || len(st.History) != 1 {
		t.Fatalf("the first conversation changed: %+v", st)
	}
}

// Regenerating restarts the last turn whatever it ended with, in place;
// a plain retry still restarts only a failed one.
func testRegenerateRestartsTheLastTurn(t *testing.T, s StreamStore) {
	tenant := newTenant()
	st, id := startStreaming(t, s, tenant)
	err := s.FinishTurn(userCtx, tenant, id, conversation.Turn{Number: 1, AssistantText: "a1", Status: conversation.TurnOK, LeaseID: st.LeaseID}, conversation.TurnFinish{})
	if err != nil {
		t.Fatal(err)
	}
	retry, err := s.StartTurn(userCtx, tenant, id, conversation.TurnStart{LeaseFor: time.Minute, Retry: true})
	if err != nil || retry.Reserved != nil {
		t.Fatalf("retry of an ok turn reserved %+v, %v; want nothing", retry.Reserved, err)
	}
	if err := s.EndTurn(userCtx, tenant, id, retry.LeaseID); err != nil {
		t.Fatal(err)
	}
	again, err := s.StartTurn(userCtx, tenant, id, conversation.TurnStart{LeaseFor: time.Minute, Retry: true, Regenerate: true})
	if err != nil || again.Reserved == nil || again.Reserved.Number != 1 || again.Reserved.UserText != "q1" ||
		again.Reserved.Status != conversation.TurnStreaming {
		t.Fatalf("regenerate reserved %+v, %v; want turn 1 q1 streaming", again.Reserved, err)
	}
	if turns := mustLoad(t, s, tenant, id, 5).History; len(turns) != 1 || turns[0].AssistantText != "" {
		t.Fatalf("after regenerate: %+v, want the one turn, its answer cleared", turns)
	}
}
