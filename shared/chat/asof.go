package chat

import (
	"time"

	"regintel/shared/asof"
	"regintel/shared/conversation"
	"regintel/shared/graph"
	"regintel/shared/prompt"
	"regintel/shared/review"
)

// asOf is the turn's as-of date, chosen once: the request's, else the
// question's, else today's.
func (t *Turn) asOf() asof.AsOf {
	if t.chosenAsOf == nil {
		a := asof.ChooseIn(t.req.AsOf, t.questionForLLM(), t.e.now(), t.profileJurisdictions())
		t.chosenAsOf = &a
	}
	return *t.chosenAsOf
}

// asOfMetadata is the as-of date as the metadata carries it.
func (t *Turn) asOfMetadata() *conversation.AsOf {
	a := t.asOf()
	out := &conversation.AsOf{Date: a.String(), Source: a.Source, Phrase: a.Phrase}
	if !a.End.IsZero() {
		out.End = a.End.Format(asof.DateLayout)
	}
	return out
}

// asOfLine is the as-of date as the turn's graph_facts message names it.
func (t *Turn) asOfLine() prompt.AsOfLine {
	return asOfLineOf(t.asOfMetadata())
}

// asOfLineOf is a stored as-of date as the prompt names it; nil (a turn
// stored before turns had one) names none.
func asOfLineOf(a *conversation.AsOf) prompt.AsOfLine {
	if a == nil {
		return prompt.AsOfLine{}
	}
	line := prompt.AsOfLine{Date: a.Date, Requested: a.Source == asof.SourceRequest}
	if a.Source == asof.SourceQuestion {
		line.Phrase, line.End = a.Phrase, a.End
	}
	return line
}

// keepFacts remembers the facts grounding read, by node id, for the
// citations.
func (t *Turn) keepFacts(found []graph.GroundedConcept) {
	t.groundedFacts = map[string]*graph.Fact{}
	for _, g := range found {
		for i := range g.Facts {
			t.groundedFacts[g.Facts[i].NodeID] = &g.Facts[i]
		}
	}
}

// validity marks fact lines for one as-of date and today (see withValidity),
// worked out once for the many facts of a turn.
type validity struct {
	today string // today's date, ISO
	check review.Check
}

func validityOn(asOfDate, today time.Time) validity {
	return validity{today: today.UTC().Format(asof.DateLayout), check: review.On(asOfDate, today)}
}

// withValidity adds the fact's valid time to its prompt line; a value that
// starts after today is marked as announced, not yet in force, and one
// whose family has passed a review point since it was checked as possibly
// out of date (review.MayBeOutdated, the rule calculation citations use too).
func (v validity) withValidity(line prompt.FactLine, f graph.Fact, conceptID string) prompt.FactLine {
	line.ValidFrom, line.ValidTo, line.Status = f.ValidFrom, f.ValidTo, f.Status
	line.NotYetInForce = f.Status == "announced" || f.ValidFrom > v.today
	line.MayBeOutdated = v.check.MayBeOutdated(f, conceptID)
	return line
}

// mayBeOutdated is review.MayBeOutdated as a fact line is marked.
func mayBeOutdated(f graph.Fact, conceptID string, asOfDate, today time.Time) bool {
	return validityOn(asOfDate, today).withValidity(prompt.FactLine{}, f, conceptID).MayBeOutdated
}

// citations name every fact given to the model with its value, valid time
// and official source. Facts are looked up by node id among those grounding
// read; a line without one keeps what the line says.
func (t *Turn) citations(facts []prompt.FactLine) []conversation.Citation {
	out := make([]conversation.Citation, 0, len(facts))
	for _, line := range facts {
		c := conversation.Citation{NodeID: line.NodeID, Label: line.Label, MayBeOutdated: line.MayBeOutdated}
		if len(line.Sources) > 0 {
			c.URL = line.Sources[0]
		}
		if when := line.LastVerified; !when.IsZero() {
			c.LastVerifiedAt = &when
		}
		if f, ok := t.groundedFacts[line.NodeID]; ok {
			c.Value, c.Unit = graph.ValueOf(f.Properties)
			c.ValidFrom, c.ValidTo, c.Status = optional(f.ValidFrom), optional(f.ValidTo), f.Status
			c.Confidence = f.Confidence
		}
		out = append(out, c)
	}
	return out
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
