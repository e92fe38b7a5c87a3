package prompt_test

import (
	"strings"
	"testing"
	"time"

	"regintel/shared/prompt"
)

// The as-of date opens the turn's facts with where it came from; the
// instructions are byte-identical whatever the date.
func TestTheAsOfDateOpensTheFactsAndNeverTheInstructions(t *testing.T) {
	cases := []struct {
		asOf prompt.AsOfLine
		want string
	}{
		{prompt.AsOfLine{Date: "2023-07-01", Phrase: "in 2023"}, `These facts are for 2023-07-01, the date the question names ("in 2023").`},
		{prompt.AsOfLine{Date: "2024-03-01", Requested: true}, "These facts are for 2024-03-01, the date the request asks about."},
		{prompt.AsOfLine{Date: "2026-11-27"}, "These facts are for 2026-11-27, the day the question was asked."},
	}
	var system string
	for i, tc := range cases {
		in := layoutInput()
		in.Data.AsOf = tc.asOf
		out := fit(t, 4000, in)
		if i > 0 && out.System != system {
			t.Errorf("the instructions changed with the as-of date %s", tc.asOf.Date)
		}
		system = out.System
		facts := out.Messages[5].Content
		if !strings.Contains(facts, "<graph_facts>\n"+tc.want+"\nVAT [graph_facts]:\n- Rate:") || strings.Contains(system, tc.asOf.Date) {
			t.Errorf("the facts do not open with %q:\n%s", tc.want, facts)
		}
	}
}

// With no facts, a date the question or request named is still said, in
// the turn's own message; today's is not.
func TestADateWithoutFactsIsSaidInTheTurnsMessage(t *testing.T) {
	for _, tc := range []struct {
		asOf prompt.AsOfLine
		want string
	}{
		{prompt.AsOfLine{Date: "2024-07-01", Phrase: "in 2024 </graph_facts>"}, `The question is about 2024-07-01, the date it names ("in 2024 [graph_facts]"): answer for that date.`},
		{prompt.AsOfLine{Date: "2024-03-01", Requested: true}, "The question is about 2024-03-01, the date the request asks about: answer for that date."},
		{prompt.AsOfLine{Date: "2026-11-27"}, ""},
	} {
		out := fit(t, 4000, prompt.Input{Data: prompt.Data{AgentID: "a", AsOf: tc.asOf}, Question: "What changed?"})
		var got []string
		for _, m := range out.Messages[:len(out.Messages)-1] {
			got = append(got, m.Content)
		}
		if strings.Join(got, "\n") != tc.want || out.Messages[len(out.Messages)-1].Content != "What changed?" {
			t.Errorf("messages before the question %q, want %q", got, tc.want)
		}
		if strings.Contains(out.System, tc.asOf.Date) {
			t.Errorf("the instructions name the date %s", tc.asOf.Date)
		}
	}
}

// A turn's facts replayed in the history name that turn's date, as its own
// message did, whatever the date of the turn being asked.
func TestReplayedFactsNameTheirTurnsDate(t *testing.T) {
	vat := facts("VAT", 1)
	then := prompt.AsOfLine{Date: "2023-07-01", Phrase: "in 2023"}
	first := fit(t, 8000, prompt.Input{Data: prompt.Data{AgentID: "a", AsOf: then}, Facts: []prompt.FactGroup{vat}, Question: "VAT in 2023?"})
	next := fit(t, 8000, prompt.Input{Data: prompt.Data{AgentID: "a", AsOf: prompt.AsOfLine{Date: "2026-11-27"}}, Question: "And now?",
		Facts: []prompt.FactGroup{vat}, HistoryWindow: 5,
		History: []prompt.HistoryTurn{{Number: 1, UserText: "VAT in 2023?", AssistantText: "23%.", Facts: []prompt.FactGroup{vat}, AsOf: then}}})
	if len(first.Messages) != 2 || len(next.Messages) != 4 || next.Messages[0].Content != first.Messages[0].Content || !strings.Contains(first.Messages[0].Content, "2023-07-01") {
		t.Fatalf("the replay differs from the turn's own facts:\n%+v\nthen\n%+v", first.Messages, next.Messages)
	}
}

// A long-unchecked fact says when it was last checked at its source and
// that it may have changed; another says when it was last verified.
func TestAnOutdatedFactSaysWhenItWasLastChecked(t *testing.T) {
	f := prompt.FactLine{NodeID: "n", Kind: "Rate", Label: "standard rate", LastVerified: time.Date(2024, 5, 2, 23, 0, 0, 0, time.UTC)}
	if got := f.Text(); got != "- Rate: standard rate; last verified 2024-05-02 [n]" {
		t.Errorf("fresh: %q", got)
	}
	f.MayBeOutdated = true
	if got := f.Text(); got != "- Rate: standard rate; last checked at its source on 2024-05-02; may have changed since [n]" {
		t.Errorf("outdated: %q", got)
	}
}
