package graphtest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"regintel/shared/concept"
	"regintel/shared/graph"
)

// A caller that has given up (its request cancelled, its deadline passed)
// gets the context's error back from every method, wrapped rather than
// replaced, and a write leaves no trace.

// deadContextCall is one store method called, with arguments that would
// succeed and (for a write) change something under a live context.
type deadContextCall struct {
	method string
	// shows says the live call leaves a difference traceOf sees, which
	// keeps the trace honest as methods are added.
	shows bool
	call  func(ctx context.Context, s graph.Store, f deadContextFixture) error
}

// deadContextCalls holds one line per method of graph.Store.
var deadContextCalls = []deadContextCall{
	{"GetNodesByIDs", false, func(ctx context.Context, s graph.Store, f deadContextFixture) error {
		_, err := s.GetNodesByIDs(ctx, []string{f.marked.ID})
		return err
	}},
	{"Ground", false, func(ctx context.Context, s graph.Store, f deadContextFixture) error {
		_, err := s.Ground(ctx, graph.GroundingQuery{Text: "What is the Value-Added Tax rate?", Jurisdictions: []string{f.jur}})
		return err
	}},
	{"ResolveConcepts", false, func(ctx context.Context, s graph.Store, f deadContextFixture) error {
		_, err := s.ResolveConcepts(ctx, []concept.Concept{f.marked})
		return err
	}},
	{"Changes", false, func(ctx context.Context, s graph.Store, f deadContextFixture) error {
		_, err := s.Changes(ctx, graph.ChangeQuery{Jurisdictions: []string{f.jur}, Limit: 10})
		return err
	}},
	{"UpsertConcepts", true, func(ctx context.Context, s graph.Store, f deadContextFixture) error {
		renamed := f.marked
		renamed.AltLabels = append(slices.Clone(renamed.AltLabels), "Renamed Tax")
		return s.UpsertConcepts(ctx, []concept.Concept{renamed, f.fresh}, graph.ProvenanceOfficial, t0.Add(time.Hour))
	}},
	{"HasUsefulDetail", false, func(ctx context.Context, s graph.Store, f deadContextFixture) error {
		_, err := s.HasUsefulDetail(ctx, f.marked.ID, t0)
		return err
	}},
	{"MarkEnrichmentRequested", true, func(ctx context.Context, s graph.Store, f deadContextFixture) error {
		_, err := s.MarkEnrichmentRequested(ctx, f.unmarked.ID, t0.Add(time.Hour), t0)
		return err
	}},
	{"ClearEnrichmentRequested", true, func(ctx context.Context, s graph.Store, f deadContextFixture) error {
		return s.ClearEnrichmentRequested(ctx, f.marked.ID, t0)
	}},
	{"WriteNodesAndEdges", true, func(ctx context.Context, s graph.Store, f deadContextFixture) error {
		return s.WriteNodesAndEdges(ctx,
			[]graph.NodeWrite{{Label: "Rate", ID: f.rateID, Props: map[string]any{"percent": 23.0}}},
			[]graph.EdgeWrite{{FromID: f.marked.ID, Type: "HAS_RATE", ToID: f.rateID}}, t0.Add(time.Hour))
	}},
	{"ApplySchema", false, func(ctx context.Context, s graph.Store, _ deadContextFixture) error {
		return s.ApplySchema(ctx)
	}},
}

// deadContextFixture is a jurisdiction of its own with a concept marked
// for enrichment at t0 and one not marked; fresh and rateID are not stored.
type deadContextFixture struct {
	jur                     string
	marked, unmarked, fresh concept.Concept
	rateID                  string
}

func newDeadContextFixture(t *testing.T, s graph.Store) deadContextFixture {
	t.Helper()
	jur := UniqueJurisdiction()
	f := deadContextFixture{
		jur:      jur,
		marked:   Concept(jur, "VAT", "Value-Added Tax"),
		unmarked: Concept(jur, "CGT", "Capital Gains Tax"),
		fresh:    Concept(jur, "LPT", "Local Property Tax"),
	}
	f.rateID = f.marked.ID + ":RATE:STANDARD"
	upsert(t, s, t0, f.marked, f.unmarked)
	if set, err := s.MarkEnrichmentRequested(context.Background(), f.marked.ID, t0, t0.Add(-time.Hour)); err != nil || !set {
		t.Fatalf("MarkEnrichmentRequested = %v, %v", set, err)
	}
	return f
}

func runCancelledContext(t *testing.T, newStore NewStore) {
	runDeadContext(t, newStore, context.Canceled, func() (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx, cancel
	})
}

func runExpiredDeadline(t *testing.T, newStore NewStore) {
	runDeadContext(t, newStore, context.DeadlineExceeded, func() (context.Context, context.CancelFunc) {
		return context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	})
}

func runDeadContext(t *testing.T, newStore NewStore, want error, dead func() (context.Context, context.CancelFunc)) {
	s := newStore(t)
	for _, c := range deadContextCalls {
		t.Run(c.method, func(t *testing.T) {
			assertLiveCallShows(t, s, c)
			f := newDeadContextFixture(t, s)
			before := traceOf(t, s, f)
			ctx, cancel := dead()
			defer cancel()
			if err := c.call(ctx, s, f); !errors.Is(err, want) {
				t.Fatalf("%s under a dead context = %v, want an error that is %v", c.method, err, want)
			}
			if after := traceOf(t, s, f); after != before {
				t.Errorf("%s under a dead context changed the graph:\nbefore %s\nafter  %s", c.method, before, after)
			}
		})
	}
}

// traceOf is everything a write could leave in the fixture's jurisdiction,
// read with a live context: its nodes (enrichment marks included) and
// whether the marked concept has detail.
func traceOf(t *testing.T, s graph.Store, f deadContextFixture) string {
	t.Helper()
	ctx := context.Background()
	nodes, err := s.GetNodesByIDs(ctx, []string{f.marked.ID, f.unmarked.ID, f.fresh.ID, f.rateID})
	if err != nil {
		t.Fatalf("GetNodesByIDs: %v", err)
	}
	slices.SortFunc(nodes, func(a, b graph.Node) int { return strings.Compare(a.ID, b.ID) })
	detail, err := s.HasUsefulDetail(ctx, f.marked.ID, t0.Add(24*time.Hour))
	if err != nil {
		t.Fatalf("HasUsefulDetail: %v", err)
	}
	b, err := json.Marshal(map[string]any{"nodes": nodes, "detail": detail})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertLiveCallShows makes c under a live context on a fixture of its own:
// it must succeed and, when c.shows, change the trace, or a dead-context
// pass would prove nothing.
func assertLiveCallShows(t *testing.T, s graph.Store, c deadContextCall) {
	t.Helper()
	f := newDeadContextFixture(t, s)
	before := traceOf(t, s, f)
	if err := c.call(context.Background(), s, f); err != nil {
		t.Fatalf("%s under a live context: %v", c.method, err)
	}
	if changed := traceOf(t, s, f) != before; changed != c.shows {
		t.Fatalf("%s under a live context changed the trace: %v, the table says %v", c.method, changed, c.shows)
	}
}
