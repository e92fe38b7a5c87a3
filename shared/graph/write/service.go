package write

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"regintel/shared/concept"
	"regintel/shared/graph"
)

// LogEvent is the "event" field of the log line written for every rejected
// item; a CloudWatch metric filter { $.event = "graph_write_rejected" }
// counts rejections by reason.
const LogEvent = "graph_write_rejected"

// Result says what a batch did: the ids written (one per distinct concept)
// and the items the guard rejected.
type Result struct {
	Written  []string
	Rejected []Rejection
	// Resolved maps each written concept's canonical id to the id of the
	// node it was written to: its own, or the existing node it resolved to.
	Resolved map[string]string
	// Held are the captures of a kind outside the vocabulary that name no
	// node the graph holds: no shared node is made for them (their kind is
	// the tenant's model's text); they stay in the capturing conversation
	// until enrichment finds them named on an official page.
	Held []concept.Concept
}

// Stats is a snapshot of the service's counters since it was created.
type Stats struct {
	Written          uint64
	Rejected         uint64
	RejectedByReason map[Reason]uint64
}

// Service is the graph write service. It is safe for concurrent use.
type Service struct {
	store graph.ConceptStore
	// resolver finds the existing node a captured concept names; nil (a
	// store that cannot resolve) keeps every concept at its canonical id.
	resolver graph.ConceptResolver
	guard    *Guard
	log      *slog.Logger
	now      func() time.Time

	written  atomic.Uint64
	rejected atomic.Uint64
	mu       sync.Mutex
	byReason map[Reason]uint64
}

// Option configures a Service.
type Option func(*Service)

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(s *Service) { s.log = l } }

// WithClock sets the time source for created_at / updated_at (default
// time.Now).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithGuard replaces the default guard.
func WithGuard(g *Guard) Option { return func(s *Service) { s.guard = g } }

// WithSources makes the guard take source URLs from p instead of the
// official-source catalog: the enrichment passes the catalog its fetcher
// uses, so what it fetched is what it may cite.
func WithSources(p SourcePolicy) Option {
	return func(s *Service) { s.guard = s.guard.WithSources(p) }
}

// NewService wraps store with the default guard. Both graph backends
// (graph.Store) also resolve concepts and take generic writes; the service
// uses those when store has them.
func NewService(store graph.ConceptStore, opts ...Option) *Service {
	s := &Service{store: store, guard: NewGuard(), log: slog.Default(), now: time.Now, byReason: map[Reason]uint64{}}
	s.resolver, _ = store.(graph.ConceptResolver)
	for _, o := range opts {
		o(s)
	}
	return s
}

// Guard returns the guard the service applies, for callers that want to
// pre-check items.
func (s *Service) Guard() *Guard { return s.guard }

// Reads returns the read side of the wrapped store. It is not the store
// itself, so no caller can reach the store's unguarded writes through it.
func (s *Service) Reads() graph.ConceptReader { return reads{s} }

type reads struct{ s *Service }

func (r reads) GetNodesByIDs(ctx context.Context, ids []string) ([]graph.Node, error) {
	return r.s.store.GetNodesByIDs(ctx, ids)
}

func (r reads) HasUsefulDetail(ctx context.Context, id string, freshSince time.Time) (bool, error) {
	return r.s.store.HasUsefulDetail(ctx, id, freshSince)
}

func (r reads) ResolveConcepts(ctx context.Context, concepts []concept.Concept) ([]string, error) {
	return r.s.resolve(ctx, concepts)
}

// resolve returns the node each normalised concept resolves to.
func (s *Service) resolve(ctx context.Context, concepts []concept.Concept) ([]string, error) {
	if s.resolver != nil {
		return s.resolver.ResolveConcepts(ctx, concepts)
	}
	ids := make([]string, len(concepts))
	for i, c := range concepts {
		ids[i] = concept.Normalize(c).ID
	}
	return ids, nil
}

// MarkEnrichmentRequested sets the concept's enrichment mark
// (graph.ConceptStore); the mark is bookkeeping, not knowledge, so it
// needs no guard.
func (s *Service) MarkEnrichmentRequested(ctx context.Context, id string, now, notBefore time.Time) (bool, error) {
	return s.store.MarkEnrichmentRequested(ctx, id, now, notBefore)
}

// ClearEnrichmentRequested undoes a mark (graph.ConceptStore).
func (s *Service) ClearEnrichmentRequested(ctx context.Context, id string, markedAt time.Time) error {
	return s.store.ClearEnrichmentRequested(ctx, id, markedAt)
}

// Stats returns the counters.
func (s *Service) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	by := make(map[Reason]uint64, len(s.byReason))
	for k, v := range s.byReason {
		by[k] = v
	}
	return Stats{Written: s.written.Load(), Rejected: s.rejected.Load(), RejectedByReason: by}
}

// ResolveConcepts checks each concept with the guard (its raw fields, then
// as normalised), resolves the accepted ones read-only against the graph,
// and writes them in one UpsertConcepts call (one transaction) with the
// given provenance. A tenant's capture (graph.ProvenanceCapture) writes
// only a bare node, so nothing a model captured is shared, and only for a
// kind in the vocabulary: a capture of another kind that names no existing
// node is returned in Result.Held, not written, as its id would carry the
// model's text to every tenant. An official
// concept (a curated record, or one enrichment confirmed on an official
// source) is written whole. An official concept that resolves to an
// existing node under another id is written to that node, its names added
// as aliases, instead of creating a twin.
// Concepts with the same id are merged first. An incoming id must be the
// concept's canonical id or the id it resolves to: a producer that computes
// ids differently would otherwise split one concept into two nodes.
// Rejections are logged and counted and do not fail the batch; an error
// means the store failed and nothing may have been written (retrying is
// safe: writes MERGE by id).
func (s *Service) ResolveConcepts(ctx context.Context, concepts []concept.Concept, prov graph.Provenance) (Result, error) {
	var res Result
	clean, claimed := s.acceptConcepts(ctx, concepts, &res)
	if len(clean) == 0 {
		return res, nil
	}
	targets, err := s.resolve(ctx, clean)
	if err != nil {
		return Result{Rejected: res.Rejected}, fmt.Errorf("resolve %d concepts: %w", len(clean), err)
	}
	resolved := map[string]string{}
	byTarget := map[string]int{}
	var writes []concept.Concept
	held, err := s.unlistedWithoutNode(ctx, prov, clean, targets)
	if err != nil {
		return Result{Rejected: res.Rejected}, err
	}
	for i, c := range clean {
		if claim, ok := claimed[c.ID]; ok && claim != targets[i] {
			s.rejectInto(ctx, &res, &Rejection{ConceptID: safeID(claim), Label: "Concept", Field: "id", Reason: ReasonIDMismatch})
			continue
		}
		if held[c.ID] {
			res.Held = append(res.Held, c)
			continue
		}
		w := retarget(c, targets[i])
		resolved[c.ID] = w.ID
		if j, ok := byTarget[w.ID]; ok {
			writes[j] = mergeConcepts(writes[j], w)
			continue
		}
		byTarget[w.ID] = len(writes)
		writes = append(writes, w)
	}
	res.Resolved = resolved
	if len(writes) == 0 {
		return res, nil
	}
	if err := s.store.UpsertConcepts(ctx, writes, prov, s.now().UTC()); err != nil {
		return Result{Rejected: res.Rejected}, fmt.Errorf("upsert %d concepts: %w", len(writes), err)
	}
	for _, c := range writes {
		res.Written = append(res.Written, c.ID)
	}
	s.written.Add(uint64(len(writes)))
	return res, nil
}

// unlistedWithoutNode returns the canonical ids of the captures (prov
// capture) whose kind is outside the vocabulary and which resolve to no
// node the graph holds: the graph makes no node of them. A capture that
// resolves to an existing node (one enrichment confirmed, or one the
// curated data holds) still names it.
func (s *Service) unlistedWithoutNode(ctx context.Context, prov graph.Provenance, clean []concept.Concept, targets []string) (map[string]bool, error) {
	if prov == graph.ProvenanceOfficial {
		return nil, nil
	}
	var ids []string
	for i, c := range clean {
		if !concept.KnownKind(c.Kind) && (targets[i] == "" || targets[i] == c.ID) {
			ids = append(ids, c.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	nodes, err := s.store.GetNodesByIDs(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("look up %d captures outside the vocabulary: %w", len(ids), err)
	}
	held := make(map[string]bool, len(ids))
	for _, id := range ids {
		held[id] = true
	}
	for _, n := range nodes {
		delete(held, n.ID)
	}
	return held, nil
}

// acceptConcepts normalises the concepts, rejects those the guard refuses
// and merges those with the same canonical id. claimed holds the incoming
// id of a concept that arrived with one other than its canonical id.
func (s *Service) acceptConcepts(ctx context.Context, concepts []concept.Concept, res *Result) (clean []concept.Concept, claimed map[string]string) {
	claimed = map[string]string{}
	byID := map[string]int{}
	for _, in := range concepts {
		err := CheckCaptured(in)
		c := concept.Normalize(in)
		if rej, ok := err.(*Rejection); ok && !idFields[rej.Field] {
			// The data sits outside the fields the id is made of, so the id
			// is safe to report (safeID still checks it).
			rej.ConceptID = safeID(c.ID)
		}
		if err == nil {
			err = s.guard.CheckConcept(c)
		}
		if err == nil && in.ID != "" && in.ID != c.ID {
			if prev, ok := claimed[c.ID]; ok && prev != in.ID {
				err = &Rejection{ConceptID: safeID(in.ID), Label: "Concept", Field: "id", Reason: ReasonIDMismatch}
			} else if rej := s.guard.checkID(in.ID, "Concept"); rej != nil {
				err = rej
			} else {
				claimed[c.ID] = in.ID
			}
		}
		if err != nil {
			s.rejectInto(ctx, res, err)
			continue
		}
		c = BareUnlessKnown(c)
		var dropped int
		if c.SourceURLs, dropped = s.guard.OfficialSourceURLs(c.SourceURLs); dropped > 0 {
			s.log.InfoContext(ctx, "source urls off the official allowlist left out", "concept_id", safeID(c.ID), "dropped", dropped)
		}
		if i, ok := byID[c.ID]; ok {
			clean[i] = mergeConcepts(clean[i], c)
			continue
		}
		byID[c.ID] = len(clean)
		clean = append(clean, c)
	}
	return clean, claimed
}

// idFields are the captured fields a concept's id is computed from.
var idFields = map[string]bool{"id": true, "domain": true, "kind": true, "jurisdiction": true}

// retarget points a concept at the node it resolved to. The node keeps its
// own pref label and id parts (both are set once); an official concept's
// names become its aliases, a capture's add nothing.
func retarget(c concept.Concept, target string) concept.Concept {
	if target == c.ID || target == "" {
		return c
	}
	out := c
	out.ID = target
	if parts := strings.Split(target, ":"); len(parts) == 3 {
		out.Domain, out.Jurisdiction, out.Kind = parts[0], parts[1], parts[2]
	}
	return out
}

func (s *Service) rejectInto(ctx context.Context, res *Result, err error) {
	s.reject(ctx, err)
	res.Rejected = append(res.Rejected, *asRejection(err))
}

// ErrNoGenericWriter is returned by Write when the store does not implement
// graph.Writer.
var ErrNoGenericWriter = errors.New("graph store does not support generic node and edge writes")

// Write checks every node and edge and writes the accepted ones in one call
// to the store's graph.Writer. An edge whose endpoint node was rejected in
// the same call is rejected too, so no dangling half of a rejected item is
// written.
func (s *Service) Write(ctx context.Context, nodes []graph.NodeWrite, edges []graph.EdgeWrite) (Result, error) {
	w, ok := s.store.(graph.Writer)
	if !ok {
		return Result{}, ErrNoGenericWriter
	}
	var res Result
	rejectedIDs := map[string]bool{}
	var okNodes []graph.NodeWrite
	for _, n := range nodes {
		if err := s.guard.CheckNode(n); err != nil {
			s.reject(ctx, err)
			res.Rejected = append(res.Rejected, *asRejection(err))
			rejectedIDs[n.ID] = true
			continue
		}
		okNodes = append(okNodes, n)
	}
	var okEdges []graph.EdgeWrite
	for _, e := range edges {
		err := s.guard.CheckEdge(e)
		if err == nil && (rejectedIDs[e.FromID] || rejectedIDs[e.ToID]) {
			err = &Rejection{ConceptID: safeID(e.FromID), Field: e.Type, Reason: ReasonMissingEndpointNode}
		}
		if err != nil {
			s.reject(ctx, err)
			res.Rejected = append(res.Rejected, *asRejection(err))
			continue
		}
		okEdges = append(okEdges, e)
	}
	if len(okNodes) == 0 && len(okEdges) == 0 {
		return res, nil
	}
	if err := w.WriteNodesAndEdges(ctx, okNodes, okEdges, s.now().UTC()); err != nil {
		return Result{Rejected: res.Rejected}, fmt.Errorf("write %d nodes and %d edges: %w", len(okNodes), len(okEdges), err)
	}
	for _, n := range okNodes {
		res.Written = append(res.Written, n.ID)
	}
	s.written.Add(uint64(len(okNodes)))
	return res, nil
}

func (s *Service) reject(ctx context.Context, err error) {
	rej := asRejection(err)
	s.rejected.Add(1)
	s.mu.Lock()
	s.byReason[rej.Reason]++
	s.mu.Unlock()
	attrs := []any{"event", LogEvent, "reason", string(rej.Reason), "rejected", 1}
	if rej.ConceptID != "" {
		attrs = append(attrs, "concept_id", rej.ConceptID)
	} else {
		attrs = append(attrs, "concept_id_withheld", true)
	}
	if rej.Label != "" {
		attrs = append(attrs, "label", rej.Label)
	}
	if rej.Field != "" {
		attrs = append(attrs, "field", rej.Field)
	}
	if rej.PIIKind != "" {
		attrs = append(attrs, "pii_kind", string(rej.PIIKind))
	}
	s.log.WarnContext(ctx, "graph write rejected by ingress guard", attrs...)
}

func asRejection(err error) *Rejection {
	var rej *Rejection
	if errors.As(err, &rej) {
		return rej
	}
	return &Rejection{Reason: Reason("error")}
}

// mergeConcepts combines two normalised concepts with the same id: the first
// non-empty label and definition win; alt labels and URLs are unioned.
func mergeConcepts(a, b concept.Concept) concept.Concept {
	merged := a
	if merged.Definition == "" {
		merged.Definition = b.Definition
	}
	merged.AltLabels = append(append([]string{}, a.AltLabels...), b.PrefLabel)
	merged.AltLabels = append(merged.AltLabels, b.AltLabels...)
	merged.SourceURLs = append(append([]string{}, a.SourceURLs...), b.SourceURLs...)
	// Normalize de-duplicates labels (dropping ones equal to the pref label)
	// and URLs; the id stays a's, which may be a node resolved to.
	out := concept.Normalize(merged)
	out.ID, out.Domain, out.Jurisdiction, out.Kind = a.ID, a.Domain, a.Jurisdiction, a.Kind
	return out
}
