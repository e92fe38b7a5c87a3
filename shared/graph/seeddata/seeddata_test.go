package seeddata

import (
	"regintel/shared/concept"
	"regintel/shared/graph/write"
	"strings"
	"testing"
)

func TestLoadIsValidAndHasIrishVATRates(t *testing.T) {
	ds, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Concepts) < 10 {
		t.Fatalf("want about a dozen concepts, got %d", len(ds.Concepts))
	}
	rates := map[float64]bool{}
	nodes := map[string]DetailNode{}
	for _, n := range ds.Nodes {
		nodes[n.ID] = n
	}
	for _, e := range ds.Edges {
		if e.From == "TAX:IE:VAT" && e.Type == "HAS_RATE" {
			rates[nodes[e.To].Properties["percent"].(float64)] = true
		}
	}
	for _, want := range []float64{23, 13.5, 9, 0} {
		if !rates[want] {
			t.Errorf("TAX:IE:VAT has no HAS_RATE edge to a %v%% rate", want)
		}
	}
	for _, c := range ds.Concepts {
		for _, u := range c.SourceURLs {
			if !strings.HasPrefix(u, "https://") {
				t.Errorf("%s: source url %q is not https", c.ID, u)
			}
		}
	}
}

func TestValidateRejectsNonCanonicalIDAndDanglingEdge(t *testing.T) {
	ds, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	bad := ds
	bad.Concepts = append([]concept.Concept{}, ds.Concepts...)
	bad.Concepts[0].ID = "tax:ie:vat"
	if bad.validate() == nil {
		t.Error("non-canonical id accepted")
	}
	dangling := ds
	dangling.Edges = append(append([]Edge{}, ds.Edges...), Edge{From: "TAX:IE:VAT", Type: "HAS_RATE", To: "NOPE"})
	if dangling.validate() == nil {
		t.Error("dangling edge accepted")
	}
	wrongType := ds
	wrongType.Edges = []Edge{{From: "TAX:IE:VAT", Type: "DROP_ALL", To: "TAX:UK:VAT"}}
	if wrongType.validate() == nil {
		t.Error("non-whitelisted relationship accepted")
	}
}

// The seed goes through the write service, so every item must pass its guard.
func TestSeedPassesIngressGuard(t *testing.T) {
	ds, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	guard := write.NewGuard()
	for _, c := range ds.Concepts {
		if err := guard.CheckConcept(c); err != nil {
			t.Errorf("%s: %v", c.ID, err)
		}
	}
	nodes, edges := ds.Writes()
	for _, n := range nodes {
		if err := guard.CheckNode(n); err != nil {
			t.Errorf("%s: %v", n.ID, err)
		}
	}
	for _, e := range edges {
		if err := guard.CheckEdge(e); err != nil {
			t.Errorf("%s-%s->%s: %v", e.FromID, e.Type, e.ToID, err)
		}
	}
}
