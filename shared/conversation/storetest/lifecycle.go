package storetest

import (
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"

	"regintel/shared/conversation"
)

// A reserved turn is visible with its question and number while it streams,
// and FinishTurn completes it in place and merges its concepts.
func testStartThenFinish(t *testing.T, s Store) {
	ctx := userCtx
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q1", AssistantText: "a1"})
	profile := conversation.Profile{PersonaType: "employee", Jurisdictions: []string{"IE"}}
	n, err := s.ReserveTurn(ctx, tenant, c.ID, conversation.Turn{UserText: "q2", AssistantText: "ignored", Profile: &profile})
	if err != nil || n != 2 {
		t.Fatalf("ReserveTurn = %d, %v; want 2", n, err)
	}
	st := mustLoad(t, s, tenant, c.ID, 5)
	if len(st.History) != 2 || st.History[1].Status != conversation.TurnStreaming || st.History[1].UserText != "q2" || st.History[1].AssistantText != "" {
		t.Fatalf("started turn stored as %+v", st.History)
	}
	if st.Conversation.Profile == nil || st.Conversation.Profile.PersonaType != "employee" {
		t.Errorf("ReserveTurn did not remember the profile: %+v", st.Conversation.Profile)
	}
	finished := conversation.Turn{Number: n, UserText: "not stored", AssistantText: "a2", Status: conversation.TurnOK,
		Provider: "openai", Model: "gpt-test", Usage: conversation.Usage{InputTokens: 3, OutputTokens: 2, TotalTokens: 5},
		LatencyMS: 7, ReferencedNodes: []string{"TAX:IE:VAT"}, Metadata: conversation.TurnMetadata{QueryComposition: "kb"}}
	if err := s.FinishTurn(ctx, tenant, c.ID, finished, conversation.TurnFinish{ActiveNodes: []string{"TAX:IE:VAT"}}); err != nil {
		t.Fatalf("FinishTurn: %v", err)
	}
	st = mustLoad(t, s, tenant, c.ID, 5)
	got := st.History[1]
	if len(st.History) != 2 || got.Number != 2 || got.UserText != "q2" || got.AssistantText != "a2" || got.Status != conversation.TurnOK ||
		got.Usage != finished.Usage || got.LatencyMS != 7 || !slices.Equal(got.ReferencedNodes, []string{"TAX:IE:VAT"}) ||
		got.Metadata.QueryComposition != "kb" || got.CreatedAt.IsZero() {
		t.Fatalf("finished turn stored as %+v", st.History)
	}
	if !slices.Equal(st.Context.ActiveNodeIDs, []string{"TAX:IE:VAT"}) {
		t.Errorf("FinishTurn merged %v, want [TAX:IE:VAT]", st.Context.ActiveNodeIDs)
	}
	if st.Conversation.LastTurnNumber != 2 {
		t.Errorf("LastTurnNumber = %d, want 2", st.Conversation.LastTurnNumber)
	}
}

// FinishTurn takes a final status only, and a turn that is not there is
// ErrNotFound, in this tenant as in another.
func testFinishRefusals(t *testing.T, s Store) {
	ctx := userCtx
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	n, err := s.ReserveTurn(ctx, tenant, c.ID, conversation.Turn{UserText: "q"})
	if err != nil {
		t.Fatal(err)
	}
	for _, status := range []conversation.TurnStatus{conversation.TurnStreaming, "failed", ""} {
		if err := s.FinishTurn(ctx, tenant, c.ID, conversation.Turn{Number: n, Status: status}, conversation.TurnFinish{}); err == nil {
			t.Errorf("FinishTurn with status %q was accepted", status)
		}
	}
	if err := s.FinishTurn(ctx, tenant, c.ID, conversation.Turn{Number: n + 1, Status: conversation.TurnOK}, conversation.TurnFinish{}); !errors.Is(err, conversation.ErrNotFound) {
		t.Errorf("FinishTurn of a turn never started = %v, want ErrNotFound", err)
	}
	if err := s.FinishTurn(ctx, newTenant(), c.ID, conversation.Turn{Number: n, Status: conversation.TurnOK}, conversation.TurnFinish{ActiveNodes: []string{"A"}}); !errors.Is(err, conversation.ErrNotFound) {
		t.Errorf("FinishTurn from another tenant = %v, want ErrNotFound", err)
	}
	if st := mustLoad(t, s, tenant, c.ID, 5); st.History[0].Status != conversation.TurnStreaming || len(st.Context.ActiveNodeIDs) != 0 {
		t.Errorf("refused finishes changed the turn: %+v, context %v", st.History[0], st.Context.ActiveNodeIDs)
	}
}

// Only the last turn, failed or interrupted, is retried; it goes back to
// streaming with its question and number, and a finished retry replaces
// it: the conversation keeps its number of turns.
func testRetryLastTurn(t *testing.T, s Store) {
	ctx := userCtx
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	if _, err := s.RetryTurn(ctx, tenant, c.ID); !errors.Is(err, conversation.ErrNotRetryable) {
		t.Errorf("retry without turns = %v, want ErrNotRetryable", err)
	}
	for _, status := range []conversation.TurnStatus{conversation.TurnOK, conversation.TurnContextRequired, conversation.TurnStreaming} {
		other := mustCreate(t, s, tenant)
		mustAppend(t, s, tenant, other.ID, conversation.Turn{UserText: "q", Status: status})
		if _, err := s.RetryTurn(ctx, tenant, other.ID); !errors.Is(err, conversation.ErrNotRetryable) {
			t.Errorf("retry of a %q turn = %v, want ErrNotRetryable", status, err)
		}
	}
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q1", AssistantText: "half", Status: conversation.TurnError})
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q2", AssistantText: "a2"})
	if _, err := s.RetryTurn(ctx, tenant, c.ID); !errors.Is(err, conversation.ErrNotRetryable) {
		t.Errorf("retry of an earlier failed turn = %v, want ErrNotRetryable (only the last turn is retried)", err)
	}
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q3", AssistantText: "cut", Status: conversation.TurnInterrupted})
	if _, err := s.RetryTurn(ctx, newTenant(), c.ID); !errors.Is(err, conversation.ErrNotFound) {
		t.Errorf("retry from another tenant = %v, want ErrNotFound", err)
	}
	if _, err := s.RetryTurn(ctx, tenant, uuid.NewString()); !errors.Is(err, conversation.ErrNotFound) {
		t.Errorf("retry of an unknown conversation = %v, want ErrNotFound", err)
	}
	retried, err := s.RetryTurn(ctx, tenant, c.ID)
	if err != nil || retried.Number != 3 || retried.UserText != "q3" || retried.Status != conversation.TurnStreaming || retried.AssistantText != "" {
		t.Fatalf("RetryTurn = %+v, %v; want turn 3 q3 streaming", retried, err)
	}
	if _, err := s.RetryTurn(ctx, tenant, c.ID); !errors.Is(err, conversation.ErrNotRetryable) {
		t.Errorf("second retry while the first streams = %v, want ErrNotRetryable", err)
	}
	if err := s.FinishTurn(ctx, tenant, c.ID, conversation.Turn{Number: 3, AssistantText: "whole", Status: conversation.TurnOK}, conversation.TurnFinish{}); err != nil {
		t.Fatal(err)
	}
	st := mustLoad(t, s, tenant, c.ID, 10)
	if len(st.History) != 3 || st.Conversation.LastTurnNumber != 3 || st.History[2].UserText != "q3" || st.History[2].AssistantText != "whole" || st.History[2].Status != conversation.TurnOK {
		t.Fatalf("after the retry: last=%d history %+v", st.Conversation.LastTurnNumber, st.History)
	}
}

// Concurrent retries of one failed turn: exactly one restarts it.
func testConcurrentRetries(t *testing.T, s Store) {
	ctx := userCtx
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q", Status: conversation.TurnError})
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, refused := 0, 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.RetryTurn(ctx, tenant, c.ID)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case errors.Is(err, conversation.ErrNotRetryable):
				refused++
			default:
				t.Errorf("RetryTurn: %v", err)
			}
		}()
	}
	wg.Wait()
	if won != 1 || refused != 7 {
		t.Errorf("%d retries restarted the turn and %d were refused, want 1 and 7", won, refused)
	}
}
