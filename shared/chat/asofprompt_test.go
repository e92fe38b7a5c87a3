package chat_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"regintel/shared/chat"
	"regintel/shared/graph"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/llm/llmtest"
)

// verifiedGraph is the seeded graph with every fact last checked at its
// source on one date, in force from an early date.
type verifiedGraph struct {
	*graphmem.Store
	verified time.Time
}

func (g verifiedGraph) Ground(ctx context.Context, q graph.GroundingQuery) ([]graph.GroundedConcept, error) {
	found, err := g.Store.Ground(ctx, q)
	for _, c := range found {
		for i := range c.Facts {
			c.Facts[i].LastVerifiedAt = g.verified
			c.Facts[i].ValidFrom, c.Facts[i].ValidTo, c.Facts[i].Status, c.Facts[i].Neighbour = "2010-01-01", "", "in_force", false
		}
	}
	return found, err
}

func verifiedHarness(t *testing.T, verified time.Time) *harness {
	mem, err := graphmem.NewSeeded(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return newHarness(t, "responses", withGraph(verifiedGraph{Store: mem, verified: verified}))
}

// messageWith is the first message of req holding s, or "".
func messageWith(req llmtest.RecordedRequest, s string) string {
	for _, m := range req.Messages {
		if strings.Contains(m.Content, s) {
			return m.Content
		}
	}
	return ""
}

// The turn's facts say which date they are for and where it came from;
// the instructions are the same whatever the date, and the next turn
// replays the facts message as it was sent.
func TestTheFactsNameTheirAsOfDateAndTheInstructionsDoNot(t *testing.T) {
	h := newHarness(t, "responses")
	today := time.Now().UTC().Format(time.DateOnly)
	asOf := time.Date(2023, 7, 1, 0, 0, 0, 0, time.UTC)
	turns := []struct {
		req  chat.Request
		want string
	}{
		{chat.Request{Message: "What was the VAT standard rate in 2023?"}, `These facts are for 2023-07-01, the date the question names ("in 2023").`},
		{chat.Request{Message: "What is the USC rate?", AsOf: asOf}, "These facts are for 2023-07-01, the date the request asks about."},
		{chat.Request{Message: "What is the PRSI rate?"}, "These facts are for " + today + ", the day the question was asked."},
	}
	vat := map[string]any{"domain": "TAX", "kind": "VAT", "jurisdiction": "IE", "prefLabel": "VAT"}
	conv := ""
	for _, tc := range turns {
		h.srv.Enqueue(llmtest.Script{Steps: llmtest.Steps(llmtest.Words("An answer."), capture(vat))})
		tc.req.ConversationID, tc.req.Profile = conv, chat.Profile{Jurisdictions: []string{"IE"}}
		_, res := h.turn(tc.req)
		conv = *res.Metadata.ConversationID
	}
	reqs := h.srv.Requests()
	if reqs[0].System != reqs[1].System || reqs[1].System != reqs[2].System {
		t.Fatal("the instructions changed with the as-of date")
	}
	first := messageWith(reqs[0], "<graph_facts>")
	for i, tc := range turns {
		facts := messageWith(reqs[i], tc.want)
		if facts == "" || !strings.Contains(facts, "<graph_facts>\n"+tc.want+"\n") || strings.Contains(reqs[i].System, "These facts are for") {
			t.Errorf("turn %d: no facts message opening with %q, or it is in the instructions:\n%s", i+1, tc.want, turnContext(reqs[i]))
		}
	}
	if !strings.Contains(first, "the question names") || reqs[1].Messages[0].Content != first {
		t.Errorf("the next turn does not replay the first turn's facts as sent:\n%s\nthen\n%s", first, reqs[1].Messages[0].Content)
	}
}

// A dated question the graph has no facts for is still told its date, in
// the turn's own message; a question about today is told nothing more.
func TestADatedQuestionWithoutFactsIsToldItsDate(t *testing.T) {
	h := newHarness(t, "responses")
	asOf := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, req := range []chat.Request{{Message: "What changed for bakers in 2024?"}, {Message: "What changed for bakers?", AsOf: asOf}, {Message: "What changed for bakers?"}} {
		h.srv.Enqueue(llmtest.TextScript("An answer."))
		h.turn(req)
	}
	reqs := h.srv.Requests()
	for i, want := range []string{`The question is about 2024-07-01, the date it names ("in 2024"): answer for that date.`,
		"The question is about 2024-03-01, the date the request asks about: answer for that date.", ""} {
		got := turnContext(reqs[i])
		if want == "" {
			if len(reqs[i].Messages) != 1 || strings.Contains(got, "The question is about") {
				t.Errorf("a question about today got a date message: %q", reqs[i].Messages)
			}
			continue
		}
		if got != want || strings.Contains(reqs[i].System, "2024") {
			t.Errorf("request %d: turn message %q, want %q", i+1, got, want)
		}
	}
}

// A fact in force that was last checked at its source before a review
// point of its family that has since passed (two years back, several
// Budgets) is marked in its prompt line and its citation; asked about an
// earlier date, before any review point since the check, it is not.
func TestALongUncheckedFactIsMarkedInThePromptAndItsCitation(t *testing.T) {
	verified := time.Now().UTC().AddDate(-2, 0, 0)
	mark := "last checked at its source on " + verified.Format(time.DateOnly) + "; may have changed since"
	for _, tc := range []struct {
		name     string
		question string
		marked   bool
	}{
		{"today", "What is the VAT standard rate?", true},
		{"before the check", "What was the VAT standard rate in " + verified.AddDate(-1, 0, 0).Format("2006") + "?", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := verifiedHarness(t, verified)
			h.srv.Enqueue(llmtest.TextScript("An answer."))
			_, res := h.turn(chat.Request{Message: tc.question, Profile: chat.Profile{Jurisdictions: []string{"IE"}}})
			facts := messageWith(h.srv.Requests()[0], "<graph_facts>")
			if strings.Contains(facts, mark) != tc.marked {
				t.Errorf("marked %v, want %v:\n%s", !tc.marked, tc.marked, facts)
			}
			if len(res.Metadata.Citations) == 0 {
				t.Fatal("no citations")
			}
			for _, c := range res.Metadata.Citations {
				if c.MayBeOutdated != tc.marked {
					t.Errorf("citation %s mayBeOutdated %v, want %v", c.NodeID, c.MayBeOutdated, tc.marked)
				}
			}
		})
	}
}
