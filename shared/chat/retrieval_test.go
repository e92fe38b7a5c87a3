package chat_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"regintel/shared/chat"
	"regintel/shared/graph"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/graph/textindex"
	"regintel/shared/llm/llmtest"
)

// countingGraph counts grounding reads.
type countingGraph struct {
	*graphmem.Store
	reads *atomic.Int32
}

func (g countingGraph) Ground(ctx context.Context, q graph.GroundingQuery) ([]graph.GroundedConcept, error) {
	g.reads.Add(1)
	return g.Store.Ground(ctx, q)
}

// wordsHarness is the seeded harness with grounding counted and, when
// indexed, the text index fed from the graph's change feed.
func wordsHarness(t *testing.T, indexed bool) (*harness, *atomic.Int32) {
	t.Helper()
	mem, err := graphmem.NewSeeded(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	reads := &atomic.Int32{}
	opts := []option{withGraph(countingGraph{Store: mem, reads: reads})}
	if indexed {
		words := textindex.New()
		if err := words.Refresh(context.Background(), mem); err != nil {
			t.Fatal(err)
		}
		opts = append(opts, func(d *chat.Deps, _ *chat.Config) { d.Words = words })
	}
	return newHarness(t, "responses", opts...), reads
}

// A question that names a rule in its own words (a plural of the label,
// words of a definition) grounds that rule's facts, in the same one graph
// read; without the index the same question grounds nothing.
func TestPeoplesWordsGroundTheRuleInOneRead(t *testing.T) {
	for _, tc := range []struct {
		question, concept string
	}{
		{"How much are the universal social charges on a salary?", "TAX:IE:USC"},
		{"What does a car's first registration in the State cost in tax?", "TAX:IE:VRT"},
	} {
		for _, indexed := range []bool{true, false} {
			h, reads := wordsHarness(t, indexed)
			h.srv.Enqueue(llmtest.TextScript("An answer."))
			_, res := h.turn(chat.Request{Message: tc.question, Profile: chat.Profile{Jurisdictions: []string{"IE"}}})
			if got := reads.Load(); got != 1 {
				t.Errorf("%q: %d grounding reads, want 1", tc.question, got)
			}
			cited := false
			for _, c := range res.Metadata.Citations {
				cited = cited || strings.HasPrefix(c.NodeID, tc.concept+":")
			}
			if cited != indexed {
				t.Errorf("%q (index %v): %s cited %v, want %v; citations %+v", tc.question, indexed, tc.concept, cited, indexed, res.Metadata.Citations)
			}
		}
	}
}

// A question naming a range is grounded on both its ends: the values in
// force at its start and at its end are cited, and the metadata says both.
func TestARangeCitesTheValuesOfBothEnds(t *testing.T) {
	h, reads := wordsHarness(t, false)
	h.srv.Enqueue(llmtest.TextScript("An answer."))
	_, res := h.turn(chat.Request{Message: "How did the USC rates change between 2023 and 2025?", Profile: chat.Profile{Jurisdictions: []string{"IE"}}})
	if a := res.Metadata.AsOf; a == nil || a.Date != "2023-07-01" || a.End != "2025-07-01" || a.Phrase != "between 2023 and 2025" {
		t.Fatalf("asOf %+v, want 2023-07-01 to 2025-07-01", res.Metadata.AsOf)
	}
	if reads.Load() != 1 {
		t.Errorf("%d grounding reads, want 1", reads.Load())
	}
	if facts := messageWith(h.srv.Requests()[0], "<graph_facts>"); !strings.Contains(facts, `These facts are for 2023-07-01 and 2025-07-01, the two ends of the range the question names ("between 2023 and 2025").`) {
		t.Errorf("the facts message does not name both ends:\n%s", facts)
	}
	validOn := func(day string) bool {
		for _, c := range res.Metadata.Citations {
			if strings.HasPrefix(c.NodeID, "TAX:IE:USC:RATE:BAND2:") && (c.ValidFrom == nil || *c.ValidFrom <= day) && (c.ValidTo == nil || day <= *c.ValidTo) {
				return true
			}
		}
		return false
	}
	for _, day := range []string{"2023-07-01", "2025-07-01"} {
		if !validOn(day) {
			t.Errorf("no USC value valid on %s cited: %+v", day, res.Metadata.Citations)
		}
	}
}

// The model may fetch what grounding missed: lookup_facts reads the graph
// once per call (after the turn's one read before the model), its facts go
// back as the call's output and join the citations, the extra model call is
// counted, and the room its output may take is in the tool budget.
func TestLookupFactsFetchesWhatGroundingMissed(t *testing.T) {
	for _, args := range []string{`{"concept":"TAX:IE:CGT","date":"2023-06-01"}`, `{"concept":"capital gains","date":"2023-06-01"}`} {
		h, reads := wordsHarness(t, true)
		h.srv.Enqueue(llmtest.Script{Steps: llmtest.Steps(llmtest.ToolCall(chat.LookupFactsToolName, args, 1))}, llmtest.TextScript("The rate was 33%."))
		_, res := h.turn(chat.Request{Message: "Could you help me with something?", Profile: chat.Profile{Jurisdictions: []string{"IE"}}})
		if res.Metadata.ModelCalls != 2 {
			t.Fatalf("%s: %d model calls, want 2", args, res.Metadata.ModelCalls)
		}
		if got := reads.Load(); got != 2 {
			t.Errorf("%s: %d graph reads, want the turn's one and the lookup's one", args, got)
		}
		reqs := h.srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d model requests", len(reqs))
		}
		if !strings.Contains(string(reqs[0].Body), chat.LookupFactsToolName) {
			t.Errorf("lookup_facts not offered")
		}
		output := ""
		for _, m := range reqs[1].Messages {
			if m.Role == "tool" {
				output = m.Content
			}
		}
		if !strings.Contains(output, `"nodeId":"TAX:IE:CGT:`) || !strings.Contains(output, `"date":"2023-06-01"`) {
			t.Errorf("%s: lookup output %q, want CGT facts for 2023-06-01", args, output)
		}
		cited := false
		for _, c := range res.Metadata.Citations {
			cited = cited || strings.HasPrefix(c.NodeID, "TAX:IE:CGT:")
		}
		if !cited {
			t.Errorf("%s: the looked-up facts are not cited: %+v", args, res.Metadata.Citations)
		}
		if ctx := res.Metadata.Context; ctx == nil || ctx.ToolTokens < chat.DefaultTokenBudget/8 {
			t.Errorf("%s: tool tokens %+v do not hold the lookup's room", args, res.Metadata.Context)
		}
	}
}
