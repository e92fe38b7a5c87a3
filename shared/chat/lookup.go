package chat

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"

	"regintel/shared/asof"
	"regintel/shared/graph"
	"regintel/shared/llm"
	"regintel/shared/prompt"
)

// LookupFactsToolName is the tool a model calls to fetch facts grounding
// did not give it.
const LookupFactsToolName = "lookup_facts"

// Bounds of one lookup: the concepts and facts it returns.
const (
	lookupConcepts = 3
	lookupFacts    = 12
)

// LookupFactsTool is the lookup_facts function tool: the model names a
// concept (its id, or words) and optionally a date, and reads back the
// official facts of the rules graph valid then.
func LookupFactsTool() llm.Tool {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	return llm.Tool{
		Name: LookupFactsToolName,
		Description: "Look up official facts (rates, thresholds, benefits) of the rules graph when the facts given " +
			"do not cover the question. Returns facts with their sources; cite them by nodeId.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"concept": str("A concept id such as TAX:IE:VAT, or a few words naming the rule"),
				"date":    str("YYYY-MM-DD the facts must be valid on; default: the turn's as-of date"),
			},
			"required": []string{"concept"},
		},
	}
}

// lookupReserve is the room a lookup's output may take, counted with the
// tool schemas against the context budget before the prompt is fitted.
func (t *Turn) lookupReserve() int { return t.e.cfg.TokenBudget / 8 }

// conceptIDShape is a canonical concept id (DOMAIN:JURISDICTION:KIND).
var conceptIDShape = regexp.MustCompile(`^[A-Z0-9_]+:[A-Z]{2,6}:[A-Z0-9_]+$`)

type lookupArgs struct {
	Concept string `json:"concept"`
	Date    string `json:"date"`
}

type lookedUpFact struct {
	NodeID    string   `json:"nodeId"`
	Concept   string   `json:"concept"`
	Label     string   `json:"label"`
	Value     string   `json:"value"`
	ValidFrom string   `json:"validFrom,omitempty"`
	ValidTo   string   `json:"validTo,omitempty"`
	Status    string   `json:"status,omitempty"`
	Sources   []string `json:"sources,omitempty"`
}

// lookupOutput answers one lookup_facts call with one graph read. The
// facts it returns join the turn's citations.
func (t *Turn) lookupOutput(ctx context.Context, argsJSON string) map[string]any {
	var args lookupArgs
	if err := json.Unmarshal([]byte(argsJSON), &args); err != nil || strings.TrimSpace(args.Concept) == "" {
		return map[string]any{"status": "error", "note": "lookup_facts needs a concept; answer with the facts given."}
	}
	date := t.asOf().Date
	if d, err := asof.ParseDate(args.Date); err == nil {
		date = d
	}
	q := graph.GroundingQuery{Jurisdictions: t.profileJurisdictions(), MaxFactsPerConcept: readFactsPerConcept, AsOf: date}
	words := strings.TrimSpace(args.Concept)
	if id := strings.ToUpper(words); conceptIDShape.MatchString(id) {
		q.ActiveIDs = []string{id}
	} else {
		q.Text = words
		if t.e.words != nil {
			q.Candidates = t.e.words.Match(words, q.Jurisdictions)
		}
	}
	gctx, cancel := context.WithTimeout(ctx, t.e.cfg.GraphTimeout)
	found, err := t.e.graph.Ground(gctx, q)
	cancel()
	if err != nil {
		t.log.Warn("lookup_facts: graph read failed", "err", err)
		return map[string]any{"status": "error", "note": "The rules graph is unavailable; answer with the facts given."}
	}
	found = focusFacts(found, words, maxFactsPerConcept)
	if len(found) > lookupConcepts {
		found = found[:lookupConcepts]
	}
	var facts []lookedUpFact
	budget := t.lookupReserve()
	marks := validityOn(date, t.e.now())
	for _, g := range found {
		for _, f := range g.Facts {
			if len(facts) == lookupFacts {
				break
			}
			line := marks.withValidity(factLine(f), f, g.Node.ID)
			item := lookedUpFact{NodeID: f.NodeID, Concept: cmp(g.Node.PrefLabel, g.Node.ID), Label: line.Label, Value: line.Value,
				ValidFrom: f.ValidFrom, ValidTo: f.ValidTo, Status: f.Status, Sources: f.SourceURLs}
			b, _ := json.Marshal(item)
			if budget -= t.e.tokens.Count(string(b)); budget < 0 {
				break
			}
			facts = append(facts, item)
			t.lookedUp = append(t.lookedUp, line)
			t.groundedFacts[f.NodeID] = &f
		}
	}
	if len(facts) == 0 {
		return map[string]any{"status": "not_found", "date": date.Format(asof.DateLayout), "note": "No official facts found for that; say so rather than guess."}
	}
	return map[string]any{"status": "found", "date": date.Format(asof.DateLayout), "facts": facts,
		"note": "Official facts from the rules graph, as data: cite them by nodeId."}
}

// allCitedLines are the fact lines the model was given: the prompt's, then
// those lookups returned that the prompt did not hold, each once.
func (t *Turn) allCitedLines(prompted []prompt.FactLine) []prompt.FactLine {
	out := append([]prompt.FactLine(nil), prompted...)
	seen := map[string]bool{}
	for _, l := range prompted {
		seen[l.NodeID] = true
	}
	for _, l := range t.lookedUp {
		if !seen[l.NodeID] {
			seen[l.NodeID] = true
			out = append(out, l)
		}
	}
	return out
}
