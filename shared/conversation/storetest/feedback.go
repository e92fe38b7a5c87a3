package storetest

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"regintel/shared/conversation"
)

// exportedFeedback is the conversation's feedback as its export holds it.
func exportedFeedback(t *testing.T, s Store, tenant, id string) []conversation.Feedback {
	t.Helper()
	held, err := s.ExportConversation(userCtx, tenant, id)
	if err != nil {
		t.Fatal(err)
	}
	if held.Feedback == nil {
		t.Fatal("export feedback is nil, want a list")
	}
	return held.Feedback
}

// Feedback is stored per turn, a second replaces the first, the export
// holds it by turn number, and the conversation's erasure takes it along.
func testTurnFeedback(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q1", AssistantText: "a1"})
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q2", AssistantText: "a2"})
	if got := exportedFeedback(t, s, tenant, c.ID); len(got) != 0 {
		t.Fatalf("feedback before any: %+v", got)
	}
	for _, f := range []conversation.Feedback{
		{TurnNumber: 2, Rating: conversation.RatingDown, Comment: "wrong rate"},
		{TurnNumber: 1, Rating: conversation.RatingUp},
		{TurnNumber: 2, Rating: conversation.RatingUp, Comment: "  fine after all  "},
	} {
		if err := s.SetTurnFeedback(userCtx, tenant, c.ID, f); err != nil {
			t.Fatalf("SetTurnFeedback(%+v): %v", f, err)
		}
	}
	got := exportedFeedback(t, s, tenant, c.ID)
	if len(got) != 2 || got[0].TurnNumber != 1 || got[0].Rating != conversation.RatingUp || got[0].Comment != "" ||
		got[1].TurnNumber != 2 || got[1].Rating != conversation.RatingUp || got[1].Comment != "fine after all" ||
		got[0].CreatedAt.IsZero() || got[1].CreatedAt.IsZero() {
		t.Fatalf("feedback = %+v, want turn 1 up and turn 2 replaced by up, \"fine after all\"", got)
	}
	erased, err := s.DeleteConversation(userCtx, tenant, c.ID)
	if err != nil || erased.Feedback != 2 {
		t.Fatalf("DeleteConversation = %+v, %v; want 2 feedback rows erased", erased, err)
	}
}

// Feedback on a turn the conversation lacks, on another tenant's or user's
// conversation, or that breaks a rule, is refused and stores nothing.
func testTurnFeedbackRefusals(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q1", AssistantText: "a1"})
	up := conversation.Feedback{TurnNumber: 1, Rating: conversation.RatingUp}
	for name, tc := range map[string]struct {
		tenant, id string
		ctxOwner   string
		f          conversation.Feedback
		want       error
	}{
		"unknown turn":         {tenant, c.ID, testUser, conversation.Feedback{TurnNumber: 2, Rating: conversation.RatingUp}, conversation.ErrTurnNotFound},
		"other tenant":         {newTenant(), c.ID, testUser, up, conversation.ErrNotFound},
		"other user":           {tenant, c.ID, "user-2", up, conversation.ErrNotFound},
		"unknown conversation": {tenant, uuid.NewString(), testUser, up, conversation.ErrNotFound},
		"no rating":            {tenant, c.ID, testUser, conversation.Feedback{TurnNumber: 1}, conversation.ErrInvalidFeedback},
		"long comment": {tenant, c.ID, testUser, conversation.Feedback{TurnNumber: 1, Rating: conversation.RatingDown,
			Comment: strings.Repeat("é", conversation.MaxFeedbackCommentRunes+1)}, conversation.ErrInvalidFeedback},
	} {
		ctx := conversation.WithOwner(userCtx, tc.ctxOwner)
		if err := s.SetTurnFeedback(ctx, tc.tenant, tc.id, tc.f); !errors.Is(err, tc.want) {
			t.Errorf("%s: SetTurnFeedback = %v, want %v", name, err, tc.want)
		}
	}
	if got := exportedFeedback(t, s, tenant, c.ID); len(got) != 0 {
		t.Fatalf("refused feedback was stored: %+v", got)
	}
	long := conversation.Feedback{TurnNumber: 1, Rating: conversation.RatingDown, Comment: strings.Repeat("é", conversation.MaxFeedbackCommentRunes)}
	if err := s.SetTurnFeedback(userCtx, tenant, c.ID, long); err != nil {
		t.Fatalf("a comment of exactly %d characters: %v", conversation.MaxFeedbackCommentRunes, err)
	}
}

// An answer asked again in place loses the feedback on the answer it
// replaces; the other turns keep theirs.
func testRetryDropsTheTurnsFeedback(t *testing.T, s Store) {
	tenant := newTenant()
	c := mustCreate(t, s, tenant)
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q1", AssistantText: "a1"})
	mustAppend(t, s, tenant, c.ID, conversation.Turn{UserText: "q2", AssistantText: "cut", Status: conversation.TurnInterrupted})
	for n := 1; n <= 2; n++ {
		if err := s.SetTurnFeedback(userCtx, tenant, c.ID, conversation.Feedback{TurnNumber: n, Rating: conversation.RatingDown}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.RetryTurn(userCtx, tenant, c.ID); err != nil {
		t.Fatal(err)
	}
	got := exportedFeedback(t, s, tenant, c.ID)
	if len(got) != 1 || got[0].TurnNumber != 1 {
		t.Fatalf("feedback after turn 2 was retried = %+v, want turn 1's only", got)
	}
}
