package write

import (
	"context"
	"testing"
	"time"

	"regintel/shared/concept"
	"regintel/shared/graph"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/graph/seeddata"
)

// TestWithMemoryGraph runs the service against the in-memory graph: the
// clean concept and its detail land, the PII-bearing ones do not.
func TestWithMemoryGraph(t *testing.T) {
	ctx := context.Background()
	store := graphmem.New()
	svc, _ := newTestService(store)
	leaky := concept.Normalize(concept.Concept{Domain: "tax", Jurisdiction: "IE", Kind: "PAYE", PrefLabel: "PAYE", AltLabels: []string{"PPSN 1234567T"}})
	res, err := svc.ResolveConcepts(ctx, []concept.Concept{vat(), leaky}, graph.ProvenanceOfficial)
	if err != nil || len(res.Written) != 1 || len(res.Rejected) != 1 {
		t.Fatalf("res %+v err %v", res, err)
	}
	nodes, _ := store.GetNodesByIDs(ctx, []string{"TAX:IE:VAT", leaky.ID})
	if len(nodes) != 1 || nodes[0].ID != "TAX:IE:VAT" {
		t.Fatalf("nodes = %+v", nodes)
	}
	if useful, _ := store.HasUsefulDetail(ctx, "TAX:IE:VAT", time.Now().Add(-time.Hour)); useful {
		t.Fatal("fresh concept already has detail")
	}
	wres, err := svc.Write(ctx,
		[]graph.NodeWrite{{Label: "Rate", ID: "RATE:IE:VAT_STANDARD", Props: map[string]any{"percent": 23.0, "pref_label": "Standard VAT rate", graph.ProvenanceKey: "official"}}},
		[]graph.EdgeWrite{{FromID: "TAX:IE:VAT", Type: "HAS_RATE", ToID: "RATE:IE:VAT_STANDARD"}})
	if err != nil || len(wres.Rejected) != 0 {
		t.Fatalf("write %+v err %v", wres, err)
	}
	if useful, _ := store.HasUsefulDetail(ctx, "TAX:IE:VAT", time.Now().Add(-time.Hour)); !useful {
		t.Fatal("concept with a rate has no useful detail")
	}
}

// TestSeedDatasetPassesTheGuard keeps the seed data and the whitelists in
// step: `make graph-seed` loads it through this service.
func TestSeedDatasetPassesTheGuard(t *testing.T) {
	ds, err := seeddata.Load()
	if err != nil {
		t.Fatal(err)
	}
	g := NewGuard()
	for _, c := range ds.Concepts {
		if err := g.CheckConcept(concept.Normalize(c)); err != nil {
			t.Errorf("seed concept: %v", err)
		}
	}
	nodes, edges := ds.Writes()
	for _, n := range nodes {
		if err := g.CheckNode(n); err != nil {
			t.Errorf("seed node: %v", err)
		}
	}
	for _, e := range edges {
		if err := g.CheckEdge(e); err != nil {
			t.Errorf("seed edge: %v", err)
		}
	}
}
