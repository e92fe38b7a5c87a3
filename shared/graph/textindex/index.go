package textindex

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"regintel/shared/graph"
)

// Field weights: a word of a concept's names says more than a word of one
// of its facts' labels, which says more than a word of its definition.
const (
	nameWeight       = 3.0
	factWeight       = 2.0
	definitionWeight = 1.0
)

// Selection bounds. A concept is a candidate when its score reaches
// minScore and half the best concept's score; at most maxCandidates are
// offered, so a question that names one rule does not drag in every rule
// that shares a common word.
const (
	minScore      = 1.5
	maxCandidates = 4
)

// Index holds the words of every official concept and fact seen on the
// change feed. It is safe for concurrent use.
type Index struct {
	mu       sync.RWMutex
	cursor   graph.ChangeCursor
	concepts map[string]*conceptDoc
	facts    map[string][]string        // fact node id -> words of its label and scope
	links    map[string]map[string]bool // concept id -> fact node ids one hop away
	// Derived on each Apply, so Match only reads: each complete concept's
	// words with their best field weight, and how many concepts hold each.
	fields map[string]map[string]float64
	df     map[string]int
}

type conceptDoc struct {
	jurisdiction string
	label        []string
	aliases      map[string][]string // alias id -> words
	definition   []string
}

// New returns an empty index.
func New() *Index {
	return &Index{concepts: map[string]*conceptDoc{}, facts: map[string][]string{}, links: map[string]map[string]bool{},
		fields: map[string]map[string]float64{}, df: map[string]int{}}
}

// refreshPage bounds one change-feed read.
const refreshPage = 500

// Refresh reads the graph's changes since the last refresh, page by page,
// and applies them.
func (x *Index) Refresh(ctx context.Context, feed graph.ChangeReader) error {
	for {
		x.mu.RLock()
		after := x.cursor
		x.mu.RUnlock()
		page, err := feed.Changes(ctx, graph.ChangeQuery{After: after, Limit: refreshPage})
		if err != nil {
			return fmt.Errorf("text index: refresh: %w", err)
		}
		x.Apply(page)
		if len(page) < refreshPage {
			return nil
		}
	}
}

// Follow refreshes the index every interval until ctx ends, and once at
// the start when now is set; a failed refresh is retried at the next
// tick. report, if set, hears of failures.
func (x *Index) Follow(ctx context.Context, feed graph.ChangeReader, every time.Duration, now bool, report func(error)) {
	t := time.NewTicker(every)
	defer t.Stop()
	if now {
		if err := x.Refresh(ctx, feed); err != nil && report != nil && ctx.Err() == nil {
			report(err)
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := x.Refresh(ctx, feed); err != nil && report != nil {
				report(err)
			}
		}
	}
}

// Apply takes changed nodes and edges into the index, in feed order. Only
// official text is indexed; a node that is not (or no longer) official is
// dropped, so a capture is never matched by name.
func (x *Index) Apply(changes []graph.Change) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, c := range changes {
		if x.cursor.Before(c.Cursor.UpdatedAt, c.Cursor.Key) {
			x.cursor = c.Cursor
		}
		switch {
		case c.Node != nil:
			x.applyNode(*c.Node)
		case c.Edge != nil:
			x.applyEdge(*c.Edge)
		}
	}
	x.derive()
}

// derive recomputes the field weights and word counts (caller holds the
// write lock).
func (x *Index) derive() {
	x.fields, x.df = map[string]map[string]float64{}, map[string]int{}
	for id, doc := range x.concepts {
		if doc.label == nil && doc.definition == nil {
			continue // aliases seen before the concept itself
		}
		w := x.weights(id, doc)
		x.fields[id] = w
		for s := range w {
			x.df[s]++
		}
	}
}

func (x *Index) applyNode(n graph.Node) {
	official := graph.IsOfficial(n.Properties)
	switch {
	case slices.Contains(n.Labels, "Concept"):
		if !official {
			delete(x.concepts, n.ID)
			return
		}
		doc := x.concepts[n.ID]
		if doc == nil {
			doc = &conceptDoc{aliases: map[string][]string{}}
			x.concepts[n.ID] = doc
		}
		doc.jurisdiction = n.Jurisdiction
		doc.label = Words(n.PrefLabel)
		doc.definition = Words(n.Definition)
	case graph.FactKind(n.Labels) != "":
		if !official {
			delete(x.facts, n.ID)
			return
		}
		scope, _ := n.Properties["applies_to"].(string)
		x.facts[n.ID] = Words(n.PrefLabel + " " + strings.ReplaceAll(scope, "_", " "))
	}
}

func (x *Index) applyEdge(e graph.Edge) {
	if e.Type == "HAS_ALT_LABEL" {
		doc := x.concepts[e.FromID]
		if doc == nil {
			doc = &conceptDoc{aliases: map[string][]string{}}
			x.concepts[e.FromID] = doc
		}
		if graph.IsOfficial(e.Properties) {
			doc.aliases[e.ToID] = Words(strings.TrimPrefix(e.ToID, graph.AltLabelID("")))
		} else {
			delete(doc.aliases, e.ToID)
		}
		return
	}
	if x.links[e.FromID] == nil {
		x.links[e.FromID] = map[string]bool{}
	}
	x.links[e.FromID][e.ToID] = true
}

// Len is the number of official concepts indexed.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	n := 0
	for _, d := range x.concepts {
		if d.label != nil || d.definition != nil {
			n++
		}
	}
	return n
}

// Match returns the ids of the official concepts the text's words name,
// best first: within jurisdictions (widened by graph.ScopeJurisdictions;
// empty means all), scored by the rarity of each shared word, weighted by
// the field it is found in (names, then fact labels and scopes, then the
// definition). Scope words ("hotel", "petrol") count with the official
// words of their category.
func (x *Index) Match(text string, jurisdictions []string) []string {
	stems := Expand(Words(text))
	if len(stems) == 0 {
		return nil
	}
	scope := graph.ScopeJurisdictions(jurisdictions)
	x.mu.RLock()
	defer x.mu.RUnlock()
	type scored struct {
		id    string
		score float64
	}
	total := len(x.fields)
	var found []scored
	for id, w := range x.fields {
		if len(scope) > 0 && !slices.Contains(scope, x.concepts[id].jurisdiction) {
			continue
		}
		score := 0.0
		for _, s := range stems {
			if weight, ok := w[s]; ok {
				score += weight * math.Log(float64(total)/float64(x.df[s]))
			}
		}
		if score >= minScore {
			found = append(found, scored{id, score})
		}
	}
	if len(found) == 0 {
		return nil
	}
	slices.SortFunc(found, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(a.id, b.id))
	})
	best := found[0].score
	var out []string
	for _, f := range found {
		if f.score < best/2 || len(out) == maxCandidates {
			break
		}
		out = append(out, f.id)
	}
	return out
}

// weights maps each word of a concept's fields to the weight of the best
// field holding it (caller holds the lock).
func (x *Index) weights(id string, doc *conceptDoc) map[string]float64 {
	w := map[string]float64{}
	put := func(words []string, weight float64) {
		for _, s := range words {
			if w[s] < weight {
				w[s] = weight
			}
		}
	}
	put(doc.definition, definitionWeight)
	for fact := range x.links[id] {
		put(x.facts[fact], factWeight)
	}
	put(doc.label, nameWeight)
	for _, a := range doc.aliases {
		put(a, nameWeight)
	}
	return w
}
