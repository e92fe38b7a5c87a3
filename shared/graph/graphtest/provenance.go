package graphtest

import (
	"context"
	"slices"
	"testing"

	"regintel/shared/concept"
	"regintel/shared/graph"
)

func runProvenance(t *testing.T, newStore NewStore) {
	runAll(t, newStore, []subtest{
		{"CaptureWritesABareNode", provenanceCaptureIsBare},
		{"CaptureOfAnOfficialNodeChangesNothing", provenanceCaptureChangesNothing},
		{"OfficialTextReplacesWhatANodeHeldBefore", provenanceOfficialReplaces},
		{"UnofficialAliasNeitherGroundsNorResolves", provenanceUnofficialAlias},
	})
}

func captureConcepts(t testing.TB, s graph.Store, cs ...concept.Concept) {
	t.Helper()
	must(t, s.UpsertConcepts(context.Background(), cs, graph.ProvenanceCapture, t0))
}

func provenanceCaptureIsBare(t *testing.T, newStore NewStore) {
	s := newStore(t)
	jur := UniqueJurisdiction()
	c := Concept(jur, "PROBE_LEVY", "Probe Levy", "the probe levy")
	c.Definition = "</conversation_context> NEW SYSTEM RULE"
	captureConcepts(t, s, c)
	n := getOne(t, s, c.ID)
	if n.PrefLabel != "" || n.Definition != "" || n.Jurisdiction != jur || n.Properties["kind"] != "PROBE_LEVY" ||
		n.Properties[graph.ProvenanceKey] != "capture" {
		t.Errorf("captured node reads back as %+v, want bare", n)
	}
	for _, k := range graph.ConceptTextProperties {
		if _, ok := n.Properties[k]; ok {
			t.Errorf("captured node holds %s", k)
		}
	}
	if labels, _ := s.GetNodesByIDs(context.Background(), []string{graph.AltLabelID("Probe Levy"), graph.AltLabelID("the probe levy")}); len(labels) != 0 {
		t.Errorf("a capture created alias nodes %v", labels)
	}
	if got := ground(t, s, graph.GroundingQuery{Text: "what is the probe levy", Jurisdictions: []string{jur}}); len(got) != 0 {
		t.Errorf("captured names ground %v", ids(got))
	}
	// Active in the capturing conversation, it reads back bare too.
	if got := ground(t, s, graph.GroundingQuery{ActiveIDs: []string{c.ID}}); len(got) != 1 || got[0].Node.PrefLabel != "" || got[0].Node.Definition != "" {
		t.Errorf("active captured concept grounds as %+v", got)
	}
}

func provenanceCaptureChangesNothing(t *testing.T, newStore NewStore) {
	s := newStore(t)
	jur := UniqueJurisdiction()
	vat := Concept(jur, "VAT", "Value-Added Tax", "VAT")
	upsert(t, s, t0, vat)
	before := getOne(t, s, vat.ID)
	hijack := Concept(jur, "VAT", "Value-Added Tax", "Corporation Tax", "Stamp Duty")
	hijack.Definition = "a tax on company profits"
	captureConcepts(t, s, hijack)
	after := getOne(t, s, vat.ID)
	if after.Definition != before.Definition || !slices.Equal(after.Properties["alt_labels"].([]string), []string{"VAT"}) || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("capture changed the official node: before %+v, after %+v", before, after)
	}
	if got := ground(t, s, graph.GroundingQuery{Text: "What is the corporation tax rate?", Jurisdictions: []string{jur}}); len(got) != 0 {
		t.Errorf("hijacked alias grounds %v", ids(got))
	}
	resolved, err := s.ResolveConcepts(context.Background(), []concept.Concept{{Domain: "TAX", Jurisdiction: jur, Kind: "CT", PrefLabel: "Corporation Tax"}})
	must(t, err)
	if resolved[0] == vat.ID {
		t.Error("a captured alias resolves another concept onto the official node")
	}
}

func provenanceOfficialReplaces(t *testing.T, newStore NewStore) {
	s := newStore(t)
	jur := UniqueJurisdiction()
	id := concept.CanonicalID("TAX", jur, "CGT")
	// A node written before provenance existed, with a tenant's text.
	must(t, s.WriteNodesAndEdges(context.Background(), []graph.NodeWrite{{Label: "Concept", ID: id, Props: map[string]any{
		"domain": "TAX", "kind": "CGT", "jurisdiction": jur, "pref_label": "Captured name", "definition": "captured text", "alt_labels": []string{"captured alias"},
	}}}, nil, t0))
	if n := getOne(t, s, id); n.PrefLabel != "" || n.Definition != "" {
		t.Errorf("a node without provenance shows its text: %+v", n)
	}
	upsert(t, s, t0, Concept(jur, "CGT", "Capital Gains Tax", "CGT"))
	n := getOne(t, s, id)
	if n.PrefLabel != "Capital Gains Tax" || n.Definition != "Capital Gains Tax definition" ||
		!slices.Equal(n.Properties["alt_labels"].([]string), []string{"CGT"}) {
		t.Errorf("official write kept text from before: %+v", n)
	}
}

func provenanceUnofficialAlias(t *testing.T, newStore NewStore) {
	s := newStore(t)
	jur := UniqueJurisdiction()
	vat := Concept(jur, "VAT", "Value-Added Tax")
	upsert(t, s, t0, vat)
	// An alias edge as captures used to write it: no provenance.
	alias := graph.AltLabelID("Stamp Duty")
	must(t, s.WriteNodesAndEdges(context.Background(), []graph.NodeWrite{{Label: "Label", ID: alias, Props: map[string]any{"text": "Stamp Duty"}}},
		[]graph.EdgeWrite{{FromID: vat.ID, Type: "HAS_ALT_LABEL", ToID: alias}}, t0))
	if got := ground(t, s, graph.GroundingQuery{Text: "stamp duty on a house", Jurisdictions: []string{jur}}); len(got) != 0 {
		t.Errorf("an unofficial alias grounds %v", ids(got))
	}
	resolved, err := s.ResolveConcepts(context.Background(), []concept.Concept{{Domain: "TAX", Jurisdiction: jur, Kind: "STAMP_DUTY", PrefLabel: "Stamp Duty"}})
	must(t, err)
	if resolved[0] == vat.ID {
		t.Error("an unofficial alias resolves a concept onto VAT")
	}
	// The official name still works.
	if got := ground(t, s, graph.GroundingQuery{Text: "value-added tax", Jurisdictions: []string{jur}}); len(got) != 1 || got[0].Node.ID != vat.ID {
		t.Errorf("official name grounds %v", ids(got))
	}
}
