package eval_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"regintel/shared/auth"
	"regintel/shared/conversation"
	convpg "regintel/shared/conversation/postgres"
	"regintel/shared/eval"
	"regintel/shared/pgpool/pgtest"
)

// ReadFeedback counts the users' thumbs over their stored turns, across
// tenants, leaving out the eval's own turns; a role held to row-level
// security is told so rather than counted as zeros.
func TestReadFeedbackCountsUsersThumbs(t *testing.T) {
	owner, runtime := pgtest.NewRuntimePools(t, 4)
	store := convpg.New(runtime)
	ctx := conversation.WithOwner(context.Background(), "user-1")

	// rate adds a conversation of len(ratings) turns to tenant and rates
	// each turn as given ("" leaves it unrated).
	rate := func(tenant string, ratings ...conversation.Rating) {
		t.Helper()
		c, err := store.CreateConversation(ctx, conversation.Conversation{TenantID: tenant, OwnerID: "user-1", Title: "t"})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range ratings {
			if _, err := store.AppendTurn(ctx, tenant, c.ID, conversation.Turn{UserText: "q", AssistantText: "a"}); err != nil {
				t.Fatal(err)
			}
			if r == "" {
				continue
			}
			if err := store.SetTurnFeedback(ctx, tenant, c.ID, conversation.Feedback{TurnNumber: i + 1, Rating: r}); err != nil {
				t.Fatal(err)
			}
		}
	}
	up, down := conversation.RatingUp, conversation.RatingDown
	rate(auth.TenantUUID("acme"), up, down, "", up)
	rate(auth.TenantUUID("acme"), up, "")
	rate(auth.TenantUUID("other"), down, up, "", "")
	rate(auth.TenantUUID(eval.Tenant), up, up, up) // the eval's own: left out

	got, err := eval.ReadFeedback(context.Background(), owner)
	if err != nil {
		t.Fatal(err)
	}
	want := eval.Feedback{Store: "postgres", Turns: 10, Up: 4, Down: 2, UpShare: 4.0 / 6, RatedShare: 6.0 / 10}
	if got != want {
		t.Errorf("feedback = %+v, want %+v", got, want)
	}
	var out bytes.Buffer
	if err := eval.WriteFeedback(&out, got); err != nil {
		t.Fatal(err)
	}
	if line := out.String(); !strings.Contains(line, "up 4, down 2, up share 0.667; rated 6 of 10 turns (0.600)") {
		t.Errorf("report line %q", line)
	}

	if _, err := eval.ReadFeedback(context.Background(), runtime); !errors.Is(err, eval.ErrFeedbackHidden) {
		t.Errorf("the runtime role: %v, want ErrFeedbackHidden", err)
	}
}

func TestWriteFeedbackWithoutAStore(t *testing.T) {
	var out bytes.Buffer
	if err := eval.WriteFeedback(&out, eval.Feedback{}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "feedback: no store") {
		t.Errorf("report %q, want it to say there is no store", out.String())
	}
}

func TestWriteFeedbackNotCounted(t *testing.T) {
	var out bytes.Buffer
	if err := eval.WriteFeedback(&out, eval.Feedback{Store: "postgres", Unread: eval.ErrFeedbackHidden.Error()}); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, "feedback (postgres): not counted: the database role is held to row-level security") || strings.Contains(got, "up 0") {
		t.Errorf("report %q, want the reason and no counts", got)
	}
}
