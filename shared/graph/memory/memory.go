// Package memory is the in-process graph used by `make dev` and unit tests:
// the same ConceptStore behaviour as graph/bolt (MERGE by id, created_at once,
// updated_at on every write, alt labels and source urls merged as sets,
// :Label alias nodes) held in maps behind one mutex.
package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"regintel/shared/concept"
	"regintel/shared/graph"
	"regintel/shared/graph/seeddata"
)

type node struct {
	id         string
	labels     []string
	properties map[string]any
}

// edge is one outgoing relationship; created_at and updated_at (epoch ms)
// feed the change feed like node timestamps do.
type edge struct {
	typ        string
	to         string
	createdAt  int64
	updatedAt  int64
	properties map[string]any
}

// Store is the in-memory graph.Store. The zero value is not usable;
// call New or NewSeeded.
type Store struct {
	mu    sync.RWMutex
	nodes map[string]*node
	out   map[string][]edge // outgoing edges by source id
	// concepts are the nodes labelled Concept, in the order they became
	// one: grounding and resolution read only those (nodes are never
	// removed, nor labels taken off).
	concepts []*node
	// chosen remembers the facts grounding chose (see grounded); every
	// change to a node or an edge empties it (see changed).
	chosen chosenFacts
}

var _ graph.Store = (*Store)(nil)

// New returns an empty store.
func New() *Store {
	return &Store{nodes: map[string]*node{}, out: map[string][]edge{}}
}

// NewSeeded returns a store loaded with the embedded IE/UK/EU seed dataset.
func NewSeeded(now time.Time) (*Store, error) {
	ds, err := seeddata.Load()
	if err != nil {
		return nil, err
	}
	s := New()
	if err := s.LoadDataset(ds, now); err != nil {
		return nil, err
	}
	return s, nil
}

// LoadDataset writes a seed dataset: its concepts through UpsertConcepts,
// then its detail nodes and edges through WriteNodesAndEdges.
func (s *Store) LoadDataset(ds seeddata.Dataset, now time.Time) error {
	if err := s.UpsertConcepts(context.Background(), ds.Concepts, graph.ProvenanceOfficial, now); err != nil {
		return err
	}
	nodes, edges := ds.Writes()
	return s.WriteNodesAndEdges(context.Background(), graph.MarkOfficial(nodes), edges, now)
}

// GetNodesByIDs returns the nodes that exist among ids, in the order asked.
func (s *Store) GetNodesByIDs(ctx context.Context, ids []string) ([]graph.Node, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]graph.Node, 0, len(ids))
	seen := map[string]bool{}
	for _, id := range ids {
		n, ok := s.nodes[id]
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, n.toGraphNode())
	}
	return out, nil
}

// UpsertConcepts merges every concept under the one lock, so a batch is
// applied atomically like the Bolt store's single transaction. A capture
// adds only a bare node, and only where none exists.
func (s *Store) UpsertConcepts(ctx context.Context, concepts []concept.Concept, prov graph.Provenance, now time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, c := range concepts {
		if c.ID == "" {
			return fmt.Errorf("memory graph: concept without id")
		}
	}
	ts := graph.Timestamp(now)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range concepts {
		if prov != graph.ProvenanceOfficial {
			s.addBare(c, ts)
			continue
		}
		s.mergeOfficial(c, ts)
	}
	return nil
}

// addBare creates a captured concept's bare node unless one exists
// (caller holds the lock).
func (s *Store) addBare(c concept.Concept, ts int64) {
	if _, ok := s.nodes[c.ID]; ok {
		return
	}
	n := s.merge("Concept", c.ID, ts)
	n.properties["domain"], n.properties["kind"], n.properties["jurisdiction"] = c.Domain, c.Kind, c.Jurisdiction
	n.properties[graph.ProvenanceKey] = string(graph.ProvenanceCapture)
}

// mergeOfficial merges an official concept, its text and its aliases
// (caller holds the lock).
func (s *Store) mergeOfficial(c concept.Concept, ts int64) {
	official := string(graph.ProvenanceOfficial)
	n := s.merge("Concept", c.ID, ts)
	p := n.properties
	if !graph.IsOfficial(p) {
		// Text a node held before it was official is not kept.
		for _, k := range graph.ConceptTextProperties {
			delete(p, k)
		}
		p[graph.ProvenanceKey] = official
	}
	// The first pref_label and definition stick: a later source that names
	// the concept differently adds an alias instead of renaming it.
	if _, ok := p["pref_label"]; !ok || p["pref_label"] == "" {
		p["pref_label"] = c.PrefLabel
	}
	if d, _ := p["definition"].(string); d == "" && c.Definition != "" {
		p["definition"] = c.Definition
	}
	// The id parts are set once: a concept resolved to an existing node
	// must not rewrite that node's parts.
	for key, value := range map[string]string{"domain": c.Domain, "kind": c.Kind, "jurisdiction": c.Jurisdiction} {
		if have, _ := p[key].(string); have == "" {
			p[key] = value
		}
	}
	// The pref label first, as the Bolt store merges them.
	names := append([]string{c.PrefLabel}, c.AltLabels...)
	pref, _ := p["pref_label"].(string)
	aliases := slices.DeleteFunc(slices.Clone(names), func(l string) bool { return l == "" || strings.EqualFold(l, pref) })
	p["alt_labels"] = unionFold(stringList(p["alt_labels"]), aliases)
	p["source_urls"] = unionExact(stringList(p["source_urls"]), c.SourceURLs)
	for _, name := range names {
		if strings.TrimSpace(name) == "" {
			continue
		}
		labelID := graph.AltLabelID(name)
		ln := s.merge("Label", labelID, ts)
		if _, ok := ln.properties["text"]; !ok {
			ln.properties["text"] = name
		}
		ln.properties[graph.ProvenanceKey] = official
		s.link(c.ID, "HAS_ALT_LABEL", labelID, ts, map[string]any{graph.ProvenanceKey: official})
	}
}

// UpsertNode merges a whitelisted node by id and sets the given properties.
func (s *Store) UpsertNode(label, id string, props map[string]any, now time.Time) error {
	if !graph.IsNodeLabel(label) {
		return fmt.Errorf("memory graph: label %q is not whitelisted", label)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.merge(label, id, graph.Timestamp(now))
	for k, v := range props {
		if k == "id" || k == "created_at" || k == "updated_at" {
			continue
		}
		n.properties[k] = v
	}
	return nil
}

// UpsertEdge merges a whitelisted relationship between two existing nodes,
// stamped with the current time.
func (s *Store) UpsertEdge(from, typ, to string) error {
	if !graph.IsRelationshipType(typ) {
		return fmt.Errorf("memory graph: relationship %q is not whitelisted", typ)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nodes[from] == nil || s.nodes[to] == nil {
		return fmt.Errorf("memory graph: edge %s-%s->%s: missing endpoint", from, typ, to)
	}
	s.link(from, typ, to, graph.Timestamp(time.Now()), nil)
	return nil
}

// HasUsefulDetail is true when the concept has an outgoing detail edge to
// an official node (one that is shown) or was verified at or after
// freshSince. An unknown concept has none.
func (s *Store) HasUsefulDetail(ctx context.Context, id string, freshSince time.Time) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	n, ok := s.nodes[id]
	if !ok {
		return false, nil
	}
	for _, e := range s.out[id] {
		if d := s.nodes[e.to]; slices.Contains(graph.DetailRelationshipTypes, e.typ) && d != nil && graph.IsOfficial(d.properties) {
			return true, nil
		}
	}
	verified, ok := n.properties["last_verified_at"].(int64)
	return ok && verified >= graph.Timestamp(freshSince), nil
}

// MarkEnrichmentRequested sets enrichment_requested_at = now unless it is
// already at or after notBefore, checked and set under one lock.
func (s *Store) MarkEnrichmentRequested(ctx context.Context, id string, now, notBefore time.Time) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.nodes[id]
	if !ok {
		return false, nil
	}
	if prev, ok := n.properties["enrichment_requested_at"].(int64); ok && prev >= graph.Timestamp(notBefore) {
		return false, nil
	}
	s.changed()
	n.properties["enrichment_requested_at"] = graph.Timestamp(now)
	return true, nil
}

// ClearEnrichmentRequested implements graph.ConceptStore.
func (s *Store) ClearEnrichmentRequested(ctx context.Context, id string, markedAt time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, ok := s.nodes[id]; ok && n.properties["enrichment_requested_at"] == graph.Timestamp(markedAt) {
		s.changed()
		delete(n.properties, "enrichment_requested_at")
	}
	return nil
}

// merge finds or creates the node (caller holds the lock), adds the label,
// sets created_at once and updated_at always.
func (s *Store) merge(label, id string, ts int64) *node {
	s.changed()
	n, ok := s.nodes[id]
	if !ok {
		n = &node{id: id, properties: map[string]any{"created_at": ts}}
		s.nodes[id] = n
	}
	if !slices.Contains(n.labels, label) {
		n.labels = append(n.labels, label)
		if label == "Concept" {
			s.concepts = append(s.concepts, n)
		}
	}
	n.properties["updated_at"] = ts
	return n
}

// link merges the edge (caller holds the lock): created_at once, updated_at
// and the given properties on every call.
func (s *Store) link(from, typ, to string, ts int64, props map[string]any) {
	s.changed()
	edges := s.out[from]
	i := slices.IndexFunc(edges, func(e edge) bool { return e.typ == typ && e.to == to })
	if i < 0 {
		edges = append(edges, edge{typ: typ, to: to, createdAt: ts, properties: map[string]any{}})
		i = len(edges) - 1
		s.out[from] = edges
	}
	e := &edges[i]
	e.updatedAt = ts
	for k, v := range props {
		e.properties[k] = v
	}
}

func (n *node) toGraphNode() graph.Node {
	props := make(map[string]any, len(n.properties))
	for k, v := range n.properties {
		if l, ok := v.([]string); ok {
			v = slices.Clone(l)
		}
		props[k] = v
	}
	out := graph.Node{
		ID:         n.id,
		Labels:     slices.Clone(n.labels),
		Properties: props,
	}
	out.PrefLabel, _ = props["pref_label"].(string)
	out.Jurisdiction, _ = props["jurisdiction"].(string)
	out.Definition, _ = props["definition"].(string)
	if ts, ok := props["updated_at"].(int64); ok {
		out.UpdatedAt = graph.TimeFromTimestamp(ts)
	}
	return graph.ShownNode(out)
}

func stringList(v any) []string {
	l, _ := v.([]string)
	return l
}

// unionFold appends the labels not already present, compared
// case-insensitively as concept.Normalize does, keeping first-seen order.
func unionFold(have, add []string) []string {
	out := slices.Clone(have)
	for _, v := range add {
		if !slices.ContainsFunc(out, func(h string) bool { return strings.EqualFold(h, v) }) {
			out = append(out, v)
		}
	}
	return out
}

// unionExact appends the values not already present, keeping order.
func unionExact(have, add []string) []string {
	out := slices.Clone(have)
	for _, v := range add {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
