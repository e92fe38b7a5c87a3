package write

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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
	guard *Guard
	log   *slog.Logger
	now   func() time.Time

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

// NewService wraps store with the default guard.
func NewService(store graph.ConceptStore, opts ...Option) *Service {
	s := &Service{store: store, guard: NewGuard(), log: slog.Default(), now: time.Now, byReason: map[Reason]uint64{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Guard returns the guard the service applies, for callers that want to
// pre-check items.
func (s *Service) Guard() *Guard { return s.guard }

// Store returns the wrapped store for reads (HasUsefulDetail and
// MarkEnrichmentRequested); writes must go through the service.
func (s *Service) Store() graph.ConceptStore { return s.store }

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

// ResolveConcepts normalises each concept, checks it with the guard, and
// writes all accepted concepts in one UpsertConcepts call (one transaction).
// Concepts with the same id are merged first. A concept whose incoming id
// differs from its canonical id is rejected: a producer that computes ids
// differently would otherwise split one concept into two nodes. Rejections
// are logged and counted and do not fail the batch; an error means the
// store failed and nothing may have been written (retrying is safe: writes
// MERGE by id).
func (s *Service) ResolveConcepts(ctx context.Context, concepts []concept.Concept) (Result, error) {
	var res Result
	byID := map[string]int{}
	var clean []concept.Concept
	for _, in := range concepts {
		c := concept.Normalize(in)
		var err error
		if in.ID != "" && in.ID != c.ID {
			err = &Rejection{ConceptID: safeID(in.ID), Label: "Concept", Field: "id", Reason: ReasonIDMismatch}
		} else {
			err = s.guard.CheckConcept(c)
		}
		if err != nil {
			s.reject(ctx, err)
			res.Rejected = append(res.Rejected, *asRejection(err))
			continue
		}
		if i, ok := byID[c.ID]; ok {
			clean[i] = mergeConcepts(clean[i], c)
			continue
		}
		byID[c.ID] = len(clean)
		clean = append(clean, c)
	}
	if len(clean) == 0 {
		return res, nil
	}
	if err := s.store.UpsertConcepts(ctx, clean, s.now().UTC()); err != nil {
		return Result{Rejected: res.Rejected}, fmt.Errorf("upsert %d concepts: %w", len(clean), err)
	}
	for _, c := range clean {
		res.Written = append(res.Written, c.ID)
	}
	s.written.Add(uint64(len(clean)))
	return res, nil
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
	// and URLs.
	return concept.Normalize(merged)
}
