package memory

import (
	"context"
	"slices"
	"testing"
	"time"

	"regintel/shared/graph"
)

// The behaviour shared with graph/bolt is tested by graphtest (see
// conformance_test.go); this covers the helpers only this store has.

func TestRejectsNonWhitelisted(t *testing.T) {
	s := New()
	if err := s.UpsertNode("User", "u1", nil, time.Now()); err == nil {
		t.Error("non-whitelisted label accepted")
	}
	if err := s.UpsertEdge("a", "OWNS", "b"); err == nil {
		t.Error("non-whitelisted relationship accepted")
	}
}

// Grounding remembers what it chose for a concept: a caller reordering or
// relabelling the facts it got must not change what the next caller gets.
func TestGroundingHandsOutItsOwnCopies(t *testing.T) {
	s, query := seededVAT(t)
	first := groundedIDs(t, s, query)
	found, _ := s.Ground(context.Background(), query)
	found[0].Facts[0].Label = "changed by a caller"
	found[0].Facts = slices.Delete(found[0].Facts, 1, 2)
	again, _ := s.Ground(context.Background(), query)
	if again[0].Facts[0].Label == "changed by a caller" {
		t.Fatal("a caller's change to its facts reached the next caller")
	}
	if !slices.Equal(first, groundedIDs(t, s, query)) {
		t.Fatal("a caller's change to its list of facts reached the next caller")
	}
}

// Every way of writing a fact must show on the next grounding, although
// grounding remembers what it chose.
func TestGroundingSeesEveryWriteAfterItRemembers(t *testing.T) {
	ctx := context.Background()
	s, query := seededVAT(t)
	now := query.AsOf
	rate := func(id string) map[string]any {
		return map[string]any{graph.ProvenanceKey: string(graph.ProvenanceOfficial), "percent": 7.5, "valid_from": "2026-01-01", "series": id}
	}
	first := groundedIDs(t, s, query)
	if err := s.WriteNodesAndEdges(ctx, []graph.NodeWrite{{Label: "Rate", ID: "TEST:WRITTEN", Props: rate("TEST:WRITTEN")}},
		[]graph.EdgeWrite{{FromID: "TAX:IE:VAT", Type: "HAS_RATE", ToID: "TEST:WRITTEN"}}, now); err != nil {
		t.Fatal(err)
	}
	if ids := groundedIDs(t, s, query); !slices.Contains(ids, "TEST:WRITTEN") || slices.Contains(first, "TEST:WRITTEN") {
		t.Fatalf("a fact written after grounding is not grounded: %v", ids)
	}
	if err := s.UpsertNode("Rate", "TEST:UPSERTED", rate("TEST:UPSERTED"), now); err != nil {
		t.Fatal(err)
	}
	if ids := groundedIDs(t, s, query); slices.Contains(ids, "TEST:UPSERTED") {
		t.Fatalf("a fact no edge reaches is grounded: %v", ids)
	}
	// Grounded again before the edge: the edge alone must empty what
	// grounding remembers.
	if err := s.UpsertEdge("TAX:IE:VAT", "HAS_RATE", "TEST:UPSERTED"); err != nil {
		t.Fatal(err)
	}
	if ids := groundedIDs(t, s, query); !slices.Contains(ids, "TEST:UPSERTED") {
		t.Fatalf("a fact upserted after grounding is not grounded: %v", ids)
	}
	if err := s.UpsertNode("Rate", "TEST:UPSERTED", map[string]any{"valid_to": "2025-01-01"}, now); err != nil {
		t.Fatal(err)
	}
	if ids := groundedIDs(t, s, query); slices.Contains(ids, "TEST:UPSERTED") {
		t.Fatalf("a fact closed after grounding is still grounded: %v", ids)
	}
}

// seededVAT is the seeded store and a query grounding Irish VAT on 1 March 2026.
func seededVAT(t *testing.T) (*Store, graph.GroundingQuery) {
	t.Helper()
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	s, err := NewSeeded(now)
	if err != nil {
		t.Fatal(err)
	}
	return s, graph.GroundingQuery{ActiveIDs: []string{"TAX:IE:VAT"}, AsOf: now, MaxFactsPerConcept: 50}
}

// groundedIDs are the node ids of the first concept's grounded facts.
func groundedIDs(t *testing.T, s *Store, query graph.GroundingQuery) []string {
	t.Helper()
	found, err := s.Ground(context.Background(), query)
	if err != nil || len(found) == 0 {
		t.Fatalf("ground: %v, %d concepts", err, len(found))
	}
	var ids []string
	for _, f := range found[0].Facts {
		ids = append(ids, f.NodeID)
	}
	return ids
}
