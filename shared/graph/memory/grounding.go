package memory

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"

	"regintel/shared/concept"
	"regintel/shared/graph"
)

// Ground implements graph.GroundingReader under one read lock. It scans
// every concept for mentions, which is fine at local-run sizes.
func (s *Store) Ground(ctx context.Context, q graph.GroundingQuery) ([]graph.GroundedConcept, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	candidates := graph.MentionCandidates(q.Text)
	scope := graph.ScopeJurisdictions(q.Jurisdictions)
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []graph.GroundedConcept
	included := map[string]bool{}
	for _, id := range q.ActiveIDs {
		n := s.nodes[id]
		if n == nil || included[id] || !slices.Contains(n.labels, "Concept") {
			continue
		}
		included[id] = true
		_, mentioned := s.firstMention(id, candidates)
		out = append(out, s.grounded(n, mentioned, q))
	}
	type mention struct {
		n   *node
		pos int
	}
	var mentions []mention
	for _, n := range s.concepts {
		id := n.id
		if included[id] {
			continue
		}
		j, _ := n.properties["jurisdiction"].(string)
		if len(scope) > 0 && !slices.Contains(scope, j) {
			continue
		}
		if !graph.IsOfficial(n.properties) {
			continue
		}
		if pos, ok := s.firstMention(id, candidates); ok {
			mentions = append(mentions, mention{n, pos})
		} else if rank := slices.Index(q.Candidates, id); rank >= 0 {
			mentions = append(mentions, mention{n, graph.CandidatePosition(rank)})
		}
	}
	slices.SortFunc(mentions, func(a, b mention) int {
		return cmp.Or(cmp.Compare(a.pos, b.pos), cmp.Compare(a.n.id, b.n.id))
	})
	for _, m := range mentions {
		out = append(out, s.grounded(m.n, true, q))
	}
	return out, nil
}

// firstMention finds the earliest position at which one of the concept's
// official aliases was mentioned (caller holds the lock).
func (s *Store) firstMention(id string, candidates map[string]int) (int, bool) {
	first, found := 0, false
	for _, e := range s.out[id] {
		if e.typ != "HAS_ALT_LABEL" || !graph.IsOfficial(e.properties) {
			continue
		}
		if pos, ok := candidates[e.to]; ok && (!found || pos < first) {
			first, found = pos, true
		}
	}
	return first, found
}

// grounded builds a concept with its official facts for the query's as-of
// date (caller holds the lock).
func (s *Store) grounded(n *node, mentioned bool, q graph.GroundingQuery) graph.GroundedConcept {
	dates := q.AsOfDates()
	key := chosenKey{concept: n.id, dates: strings.Join(dates, " "), limit: q.MaxFacts()}
	facts, ok := s.chosen.get(key)
	if !ok {
		facts = s.choose(n, dates, q.MaxFacts())
		s.chosen.put(key, facts)
	}
	return graph.GroundedConcept{Node: n.toGraphNode(), Facts: copyFacts(facts), Mentioned: mentioned}
}

// choose builds the concept's official facts for the dates (caller holds
// the lock): it chooses on the facts' times, then builds only those chosen.
func (s *Store) choose(n *node, dates []string, limit int) []graph.Fact {
	edges := s.out[n.id]
	times := make([]graph.Fact, 0, len(edges))
	reached := make(map[string]edge, len(edges))
	windowFrom, windowTo := graph.FactWindowFor(dates)
	for _, e := range edges {
		target := s.nodes[e.to]
		if target == nil || !graph.IsOfficial(target.properties) || !inWindow(target.properties, windowFrom, windowTo) {
			continue
		}
		if graph.FactKind(target.labels) == "" {
			continue
		}
		if _, seen := reached[e.to]; !seen {
			reached[e.to] = e
		}
		times = append(times, graph.FactTimes(target.id, target.properties))
	}
	chosen := graph.SelectFactsOn(times, dates, limit)
	facts := make([]graph.Fact, len(chosen))
	for i, c := range chosen {
		target, e := s.nodes[c.NodeID], reached[c.NodeID]
		facts[i] = graph.NewFact(target.id, graph.FactKind(target.labels), e.typ, target.properties, n.properties)
		facts[i].Neighbour = c.Neighbour
	}
	return facts
}

// chosenFacts remembers, for the store's current nodes and edges, the facts
// grounding chose for a concept on its dates: a conversation asks about the
// same concepts turn after turn, and the choice reads every fact of the
// concept. Readers share it under the store's read lock, so it has a lock
// of its own; a writer empties it under the write lock.
type chosenFacts struct {
	mu    sync.Mutex
	facts map[chosenKey][]graph.Fact
}

type chosenKey struct {
	concept, dates string
	limit          int
}

// maxChosen bounds what chosenFacts holds; a full one is emptied.
const maxChosen = 4096

func (c *chosenFacts) get(key chosenKey) ([]graph.Fact, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	facts, ok := c.facts[key]
	return facts, ok
}

// put keeps facts; each caller gets a copy of the list (see copyFacts).
func (c *chosenFacts) put(key chosenKey, facts []graph.Fact) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.facts == nil || len(c.facts) >= maxChosen {
		c.facts = map[chosenKey][]graph.Fact{}
	}
	c.facts[key] = facts
}

// changed empties the remembered choices: the caller holds the write lock
// and is about to change a node or an edge.
func (s *Store) changed() {
	s.chosen.mu.Lock()
	s.chosen.facts = nil
	s.chosen.mu.Unlock()
}

// copyFacts copies the list and each fact, so a caller may reorder the
// list or set a fact's fields; the values and sources stay shared, which
// callers only read (see graph.Fact).
func copyFacts(facts []graph.Fact) []graph.Fact {
	return slices.Clone(facts)
}

// inWindow: a fact valid somewhere in [from, to], as the Bolt store reads
// them (an undated end is open).
func inWindow(props map[string]any, from, to string) bool {
	validFrom, _ := props["valid_from"].(string)
	validTo, _ := props["valid_to"].(string)
	return validFrom <= to && (validTo == "" || validTo >= from)
}

// ResolveConcepts implements graph.ConceptResolver under one read lock.
func (s *Store) ResolveConcepts(ctx context.Context, concepts []concept.Concept) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, len(concepts))
	for i, raw := range concepts {
		c := concept.Normalize(raw)
		names := graph.ResolutionLabelIDs(c)
		var sameTriple []string
		var byName []graph.NameMatch
		for _, n := range s.concepts {
			id := n.id
			p := n.properties
			if id == c.ID || (p["domain"] == c.Domain && p["kind"] == c.Kind && p["jurisdiction"] == c.Jurisdiction) {
				sameTriple = append(sameTriple, id)
				continue
			}
			if p["jurisdiction"] != c.Jurisdiction {
				continue
			}
			if slices.ContainsFunc(s.out[id], func(e edge) bool {
				return e.typ == "HAS_ALT_LABEL" && graph.IsOfficial(e.properties) && slices.Contains(names, e.to)
			}) {
				pref, _ := p["pref_label"].(string)
				byName = append(byName, graph.NameMatch{ID: id, PrefLabel: pref})
			}
		}
		out[i] = graph.ChooseResolution(c, sameTriple, byName)
	}
	return out, nil
}

// ApplySchema implements graph.SchemaApplier: maps need no schema.
func (s *Store) ApplySchema(ctx context.Context) error { return ctx.Err() }

// FactSeries implements graph.SeriesReader under one read lock.
func (s *Store) FactSeries(ctx context.Context, series []string) ([]graph.Node, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []graph.Node
	for _, n := range s.nodes {
		name, _ := n.properties["series"].(string)
		if name != "" && graph.FactKind(n.labels) != "" && graph.SeriesMatch(series, name) {
			out = append(out, n.toGraphNode())
		}
	}
	slices.SortFunc(out, func(a, b graph.Node) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}
