package graphtest

import (
	"context"
	"slices"
	"testing"

	"regintel/shared/concept"
	"regintel/shared/graph"
)

func runResolve(t *testing.T, newStore NewStore) {
	runAll(t, newStore, []subtest{
		{"SeedVRTByLabel", resolveSeedVRTByLabel},
		{"RulesInOrder", resolveRulesInOrder},
		{"PrefLabelMatchWinsAmongNames", resolvePrefLabelMatchWinsAmongNames},
	})
}

func resolveSeedVRTByLabel(t *testing.T, newStore NewStore) {
	s := newStore(t)
	got := resolve(t, s,
		concept.Concept{Domain: "vehicle reg", Jurisdiction: "ie", Kind: "VRT", PrefLabel: "VRT"},
		concept.Concept{Domain: "TAX", Jurisdiction: "IE", Kind: "vat", PrefLabel: "sales tax"},
		concept.Concept{Domain: "CUSTOMS", Jurisdiction: "IE", Kind: "Hospitality VAT", PrefLabel: "Import levy", AltLabels: []string{"hospitality  vat"}},
	)
	want := []string{"TAX:IE:VRT", "TAX:IE:VAT", "TAX:IE:VAT"}
	if !slices.Equal(got, want) {
		t.Errorf("resolved %v, want %v", got, want)
	}
}

func resolveRulesInOrder(t *testing.T, newStore NewStore) {
	s := newStore(t)
	jur, elsewhere := UniqueJurisdiction(), UniqueJurisdiction()
	vrt := Concept(jur, "VRT", "Vehicle Registration Tax", "VRT")
	// A node holding the triple under an older id scheme.
	must(t, s.WriteNodesAndEdges(context.Background(), []graph.NodeWrite{{Label: "Concept", ID: "LEGACY:" + jur + ":PAYE",
		Props: map[string]any{"domain": "TAX", "kind": "PAYE", "jurisdiction": jur, "pref_label": "Pay As You Earn"}}}, nil, t0))
	payeAlias := Concept(jur, "INCOME_TAX", "PAYE")
	upsert(t, s, t0, vrt, payeAlias)

	fresh := concept.Concept{Domain: "TAX", Jurisdiction: jur, Kind: "Carbon tax", PrefLabel: "Carbon Tax"}
	inputs := []concept.Concept{
		{Domain: "VEHICLE_REG", Jurisdiction: jur, Kind: "VRT", PrefLabel: "vrt"},    // by label
		{Domain: "tax", Jurisdiction: jur, Kind: "paye", PrefLabel: "PAYE"},          // same triple beats the label
		{Domain: "TAX", Jurisdiction: jur, Kind: "vrt", PrefLabel: "Something else"}, // same triple
		{Domain: "MOTOR", Jurisdiction: elsewhere, Kind: "VRT", PrefLabel: "VRT"},    // label of another jurisdiction
		fresh, // canonical id
		{Domain: "OTHER", Jurisdiction: jur, Kind: "X", PrefLabel: "Y", AltLabels: []string{"Vehicle Registration Tax"}}, // alt label
	}
	want := []string{vrt.ID, "LEGACY:" + jur + ":PAYE", vrt.ID, "MOTOR:" + elsewhere + ":VRT", concept.Normalize(fresh).ID, vrt.ID}
	if got := resolve(t, s, inputs...); !slices.Equal(got, want) {
		t.Errorf("resolved\n %v\nwant\n %v", got, want)
	}
	if got := resolve(t, s); len(got) != 0 {
		t.Errorf("empty batch resolved to %v", got)
	}
	if nodes, _ := s.GetNodesByIDs(context.Background(), []string{concept.Normalize(fresh).ID}); len(nodes) != 0 {
		t.Error("resolving wrote a node")
	}
}

func resolvePrefLabelMatchWinsAmongNames(t *testing.T, newStore NewStore) {
	s := newStore(t)
	jur := UniqueJurisdiction()
	byAlias := Concept(jur, "A_LEVY", "Annual levy", "Stamp duty")
	byPref := Concept(jur, "Z_DUTY", "Stamp Duty")
	upsert(t, s, t0, byAlias, byPref)
	got := resolve(t, s, concept.Concept{Domain: "PROPERTY", Jurisdiction: jur, Kind: "STAMP", PrefLabel: "stamp duty"})
	if !slices.Equal(got, []string{byPref.ID}) {
		t.Errorf("resolved %v, want %s (its pref label is the captured name)", got, byPref.ID)
	}
}

func resolve(t testing.TB, s graph.Store, cs ...concept.Concept) []string {
	t.Helper()
	got, err := s.ResolveConcepts(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(cs) {
		t.Fatalf("%d ids for %d concepts", len(got), len(cs))
	}
	return got
}
