package httpapi_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"regintel/shared/auth"
	"regintel/shared/conversation"
	"regintel/shared/pii"
)

// checkExportedFeedback compares the export's feedback with the rows.
func checkExportedFeedback(t *testing.T, f *fixture, id string, got exportBody) {
	t.Helper()
	want := queryStrings(t, f.pool, `SELECT turn_number || ' ' || rating || ' ' || comment FROM turn_feedback
		WHERE conversation_id = $1::uuid ORDER BY turn_number`, id)
	var have []string
	for _, fb := range got.Feedback {
		have = append(have, strings.Join([]string{strconv.Itoa(fb.TurnNumber), string(fb.Rating), fb.Comment}, " "))
	}
	if len(want) == 0 || strings.Join(have, "|") != strings.Join(want, "|") {
		t.Errorf("exported feedback %q, rows %q", have, want)
	}
}

// seedTurns creates a conversation of tenant A's user with two answered
// turns, on either store.
func (f *fixture) seedTurns(title string) conversation.Conversation {
	f.t.Helper()
	ctx := conversation.WithOwner(context.Background(), userA)
	c := f.create(tenantA, userA, title)
	for _, q := range []string{"What is the VAT rate?", "And for food?"} {
		if _, err := f.store.AppendTurn(ctx, auth.TenantUUID(tenantA), c.ID, conversation.Turn{UserText: q, AssistantText: "answer"}); err != nil {
			f.t.Fatal(err)
		}
	}
	return c
}

func (f *fixture) feedback(tenant, user, id, turn, body string) response {
	f.t.Helper()
	return f.do(http.MethodPost, "/conversations/"+id+"/turns/"+turn+"/feedback", tenant, user, "application/json", body)
}

func (f *fixture) exportedFeedback(id string) []conversation.Feedback {
	f.t.Helper()
	var got exportBody
	resp := f.get("/conversations/"+id+"/export", tenantA)
	resp.decode(f.t, &got)
	return got.Feedback
}

// A thumbs up or down is stored per turn; a second replaces the first, its
// comment is stored redacted, and the export shows it.
func TestFeedbackIsStoredPerTurnAndReplaced(t *testing.T) {
	for name, memory := range map[string]bool{"postgres": false, "memory": true} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{memory: memory})
			s := f.seedTurns("rated")
			if err := f.store.SetTurnFeedback(conversation.WithOwner(context.Background(), userA), auth.TenantUUID(tenantA), s.ID,
				conversation.Feedback{TurnNumber: 2, Rating: conversation.RatingUp}); err != nil {
				t.Fatal(err)
			}
			if resp := f.feedback(tenantA, userA, s.ID, "1", `{"rating": "up"}`); resp.status != http.StatusNoContent || len(resp.body) != 0 {
				t.Fatalf("first feedback: %d %s", resp.status, resp.body)
			}
			comment := "wrong; mail me at mary.byrne@example.ie"
			if resp := f.feedback(tenantA, userA, s.ID, "1", `{"rating": "down", "comment": "`+comment+`"}`); resp.status != http.StatusNoContent {
				t.Fatalf("second feedback: %d %s", resp.status, resp.body)
			}
			redacted, kinds := pii.Redact(comment)
			if len(kinds) == 0 {
				t.Fatal("the comment holds no personal data; the test would prove nothing")
			}
			got := f.exportedFeedback(s.ID)
			// Turn 2 holds the seeded feedback.
			if len(got) != 2 || got[0].TurnNumber != 1 || got[0].Rating != conversation.RatingDown || got[0].Comment != redacted ||
				got[1].TurnNumber != 2 {
				t.Fatalf("exported feedback = %+v, want turn 1 down %q then turn 2's", got, redacted)
			}
		})
	}
}

// Feedback on another caller's conversation or an unknown turn is a 404;
// a body or turn number that breaks a rule is a 400; nothing is stored.
func TestFeedbackRefusals(t *testing.T) {
	f := newFixture(t, fixtureOptions{memory: true})
	s := f.seedTurns("rated")
	if resp := f.feedback(tenantA, userA, s.ID, "1", `{"rating": "up", "comment": "clear"}`); resp.status != http.StatusNoContent {
		t.Fatalf("feedback: %d %s", resp.status, resp.body)
	}
	before := f.exportedFeedback(s.ID)
	long := strings.Repeat("a", conversation.MaxFeedbackCommentRunes+1)
	for _, tc := range []struct {
		name, tenant, user, id, turn, body string
		status                             int
		code                               string
	}{
		{"other user", tenantA, "user-b", s.ID, "1", `{"rating": "up"}`, 404, "conversation_not_found"},
		{"other tenant", tenantB, userA, s.ID, "1", `{"rating": "up"}`, 404, "conversation_not_found"},
		{"unknown turn", tenantA, userA, s.ID, "3", `{"rating": "up"}`, 404, "turn_not_found"},
		{"turn zero", tenantA, userA, s.ID, "0", `{"rating": "up"}`, 400, "invalid_request"},
		{"turn not a number", tenantA, userA, s.ID, "first", `{"rating": "up"}`, 400, "invalid_request"},
		{"turn past the column's range", tenantA, userA, s.ID, "2147483648", `{"rating": "up"}`, 400, "invalid_request"},
		{"no rating", tenantA, userA, s.ID, "1", `{"comment": "meh"}`, 400, "invalid_request"},
		{"other rating", tenantA, userA, s.ID, "1", `{"rating": "sideways"}`, 400, "invalid_request"},
		{"long comment", tenantA, userA, s.ID, "1", `{"rating": "down", "comment": "` + long + `"}`, 400, "invalid_request"},
	} {
		resp := f.feedback(tc.tenant, tc.user, tc.id, tc.turn, tc.body)
		if resp.status != tc.status || resp.errorCode(t) != tc.code {
			t.Errorf("%s: %d %s, want %d %s", tc.name, resp.status, resp.body, tc.status, tc.code)
		}
	}
	if after := f.exportedFeedback(s.ID); len(before) != 1 || len(after) != 1 || after[0] != before[0] {
		t.Errorf("refused feedback changed what is stored: %+v -> %+v", before, after)
	}
}
