package graphtest

import (
	"context"
	"slices"
	"testing"
	"time"

	"regintel/shared/concept"
	"regintel/shared/graph"
)

func runGround(t *testing.T, newStore NewStore) {
	runAll(t, newStore, []subtest{
		{"IrishVATQuestionGroundsItsRates", groundIrishVATQuestionGroundsItsRates},
		{"JurisdictionFilter", groundJurisdictionFilter},
		{"WholeWordsOnly", groundWholeWordsOnly},
		{"ActiveFirstThenMentioned", groundActiveFirstThenMentioned},
		{"CandidatesAfterMentions", groundCandidatesAfterMentions},
		{"FactsNewestFirstWithProvenance", func(t *testing.T, newStore NewStore) { groundFacts(t, newStore(t)) }},
	})
}

func groundIrishVATQuestionGroundsItsRates(t *testing.T, newStore NewStore) {
	s := newStore(t)
	got := ground(t, s, graph.GroundingQuery{
		Text:          "What rate of Irish VAT applies to restaurant meals?",
		Jurisdictions: []string{"IE"},
		// Other tests may add facts to the seed concepts; the seed's
		// four rates must all fit.
		MaxFactsPerConcept: 50,
	})
	vat := find(t, got, "TAX:IE:VAT")
	if !vat.Mentioned || vat.Node.PrefLabel != "Value-Added Tax" {
		t.Errorf("TAX:IE:VAT grounded as %+v", vat)
	}
	// The four main rates, each in force today with the official page that
	// states it; the scoped rates (hospitality, energy) share percents with
	// them, so each is found by its series.
	const historical = "https://www.revenue.ie/en/vat/vat-rates/historical-vat-rates/index.aspx"
	bySeries := map[string]graph.Fact{}
	for _, f := range vat.Facts {
		if f.Kind == "Rate" && f.Relationship == "HAS_RATE" && !f.Neighbour {
			bySeries[f.Series] = f
		}
	}
	for _, want := range []struct {
		series  string
		percent float64
		source  string
	}{
		{"TAX:IE:VAT:RATE:STANDARD", 23, historical},
		{"TAX:IE:VAT:RATE:REDUCED", 13.5, historical},
		{"TAX:IE:VAT:RATE:SECOND_REDUCED", 9, historical},
		{"TAX:IE:VAT:RATE:ZERO", 0, "https://www.revenue.ie/en/vat/vat-rates/index.aspx"},
	} {
		f, ok := bySeries[want.series]
		if !ok {
			t.Errorf("no %s rate among %+v", want.series, vat.Facts)
			continue
		}
		if p, _ := f.Properties["percent"].(float64); p != want.percent {
			t.Errorf("%s: %v%%, want %v%%", want.series, p, want.percent)
		}
		if !slices.Contains(f.SourceURLs, want.source) {
			t.Errorf("%s: source urls %v", want.series, f.SourceURLs)
		}
		if f.Label == "" || f.Properties["band"] == nil || f.UpdatedAt.IsZero() {
			t.Errorf("%s = %+v", want.series, f)
		}
		for _, k := range []string{"id", "created_at", "updated_at", "pref_label"} {
			if _, ok := f.Properties[k]; ok {
				t.Errorf("%s carries bookkeeping property %s", want.series, k)
			}
		}
	}
	if slices.Contains(ids(got), "TAX:UK:VAT") {
		t.Error("a UK concept grounded for an Irish conversation")
	}
	if !slices.Contains(ids(got), "TAX:IE:VAT") || slices.Contains(ids(got), "TAX:IE:VRT") {
		t.Errorf("grounded %v", ids(got))
	}
}

func groundJurisdictionFilter(t *testing.T, newStore NewStore) {
	s := newStore(t)
	text := "How does VAT relate to the EU VAT Directive?"
	uk := ids(ground(t, s, graph.GroundingQuery{Text: text, Jurisdictions: []string{"uk"}}))
	if !slices.Contains(uk, "TAX:UK:VAT") || slices.Contains(uk, "TAX:IE:VAT") || slices.Contains(uk, "TAX:EU:VAT_DIRECTIVE") {
		t.Errorf("UK conversation grounded %v, want UK VAT only (the UK is not an EU member)", uk)
	}
	ie := ids(ground(t, s, graph.GroundingQuery{Text: text, Jurisdictions: []string{"IE"}}))
	if !slices.Contains(ie, "TAX:IE:VAT") || !slices.Contains(ie, "TAX:EU:VAT_DIRECTIVE") || slices.Contains(ie, "TAX:UK:VAT") {
		t.Errorf("IE conversation grounded %v, want Irish VAT and the EU directive", ie)
	}
	all := ids(ground(t, s, graph.GroundingQuery{Text: text}))
	if got := only(all, "TAX:IE:VAT", "TAX:UK:VAT", "TAX:EU:VAT_DIRECTIVE"); len(got) != 3 {
		t.Errorf("no jurisdictions grounded %v, want all three", all)
	}
	active := ground(t, s, graph.GroundingQuery{ActiveIDs: []string{"TAX:UK:VAT"}, Text: "and VAT?", Jurisdictions: []string{"IE"}})
	if got := ids(active); len(got) < 2 || got[0] != "TAX:UK:VAT" || !active[0].Mentioned || !slices.Contains(got, "TAX:IE:VAT") {
		t.Errorf("active concept outside the jurisdictions: %v", got)
	}
}

func groundWholeWordsOnly(t *testing.T, newStore NewStore) {
	s := newStore(t)
	jur := UniqueJurisdiction()
	vat, rate := Concept(jur, "VAT", "Value-Added Tax", "VAT"), Concept(jur, "RATE", "Rate")
	directive := Concept(jur, "DIRECTIVE", "Principal Directive", "Directive 2006/112/EC")
	upsert(t, s, t0, vat, rate, directive)
	mine := []string{vat.ID, rate.ID, directive.ID}
	q := graph.GroundingQuery{Jurisdictions: []string{jur}}
	q.Text = "VATS and private accounts, separate things"
	if got := only(ids(ground(t, s, q)), mine...); len(got) != 0 {
		t.Errorf("%q grounded %v", q.Text, got)
	}
	q.Text = "Is a vat-registered trader's RATE set by directive 2006/112/ec?"
	got := ground(t, s, q)
	if found := only(ids(got), mine...); !slices.Equal(found, mine) {
		t.Errorf("%q grounded %v, want %v in order of mention", q.Text, found, mine)
	}
	for _, gc := range got {
		if slices.Contains(mine, gc.Node.ID) && !gc.Mentioned {
			t.Errorf("%s not marked mentioned", gc.Node.ID)
		}
	}
}

func groundActiveFirstThenMentioned(t *testing.T, newStore NewStore) {
	s := newStore(t)
	jur := UniqueJurisdiction()
	a, b, c := Concept(jur, "A", "Alpha levy"), Concept(jur, "B", "Beta levy"), Concept(jur, "C", "Gamma levy")
	upsert(t, s, t0, a, b, c)
	got := ground(t, s, graph.GroundingQuery{
		ActiveIDs: []string{b.ID, "TAX:" + jur + ":MISSING", a.ID, b.ID},
		Text:      "gamma levy versus alpha levy", Jurisdictions: []string{jur},
	})
	if found := only(ids(got), a.ID, b.ID, c.ID); !slices.Equal(found, []string{b.ID, a.ID, c.ID}) || len(got) < 3 {
		t.Fatalf("grounded %v, want active %s, %s then mentioned %s", ids(got), b.ID, a.ID, c.ID)
	}
	if got[0].Mentioned || !got[1].Mentioned || !got[2].Mentioned {
		t.Errorf("mentioned flags: %v %v %v, want false true true", got[0].Mentioned, got[1].Mentioned, got[2].Mentioned)
	}
	if none := ground(t, s, graph.GroundingQuery{}); len(none) != 0 {
		t.Errorf("empty query grounded %v", ids(none))
	}
}

// groundCandidatesAfterMentions: a text index's candidates join the
// mentioned concepts after those the text names, in the index's order, once
// each, official and within the jurisdictions only.
func groundCandidatesAfterMentions(t *testing.T, newStore NewStore) {
	s := newStore(t)
	jur, other := UniqueJurisdiction(), UniqueJurisdiction()
	named, picked, both := Concept(jur, "NAMED", "Named levy"), Concept(jur, "PICKED", "Picked levy"), Concept(jur, "BOTH", "Both levy")
	active, elsewhere := Concept(jur, "ACTIVE", "Active levy"), Concept(other, "ELSEWHERE", "Elsewhere levy")
	upsert(t, s, t0, named, picked, both, active, elsewhere)
	captured := Concept(jur, "CAPTURED", "Captured levy")
	must(t, s.UpsertConcepts(context.Background(), []concept.Concept{captured}, graph.ProvenanceCapture, t0))
	got := ground(t, s, graph.GroundingQuery{
		ActiveIDs:     []string{active.ID},
		Text:          "both levy and named levy",
		Candidates:    []string{captured.ID, elsewhere.ID, picked.ID, active.ID, both.ID},
		Jurisdictions: []string{jur},
	})
	want := []string{active.ID, both.ID, named.ID, picked.ID}
	if found := only(ids(got), append(want, captured.ID, elsewhere.ID)...); !slices.Equal(found, want) {
		t.Fatalf("grounded %v, want %v", found, want)
	}
	for _, gc := range got {
		if gc.Node.ID == picked.ID && !gc.Mentioned {
			t.Errorf("a candidate is not marked mentioned")
		}
		if gc.Node.ID == active.ID && gc.Mentioned {
			t.Errorf("an active concept that is only a candidate is marked mentioned")
		}
	}
	if alone := ids(ground(t, s, graph.GroundingQuery{Candidates: []string{picked.ID}, Jurisdictions: []string{jur}})); !slices.Equal(alone, []string{picked.ID}) {
		t.Errorf("candidates alone grounded %v", alone)
	}
}

func groundFacts(t *testing.T, s graph.Store) {
	ctx := context.Background()
	jur := UniqueJurisdiction()
	c := Concept(jur, "PAYE", "Pay As You Earn")
	other := Concept(jur, "USC", "Universal Social Charge")
	upsert(t, s, t0, c, other)
	verified := t0.Add(-time.Hour)
	write := func(at time.Time, n graph.NodeWrite, rel string) { t.Helper(); writeFact(t, s, c.ID, at, n, rel) }
	write(t0.Add(1*time.Minute), graph.NodeWrite{Label: "Rate", ID: c.ID + ":RATE", Props: map[string]any{
		"pref_label": "PAYE higher rate", "percent": 40.0, "source_url": "https://www.revenue.ie/paye-rates", "quote": "40%",
	}}, "HAS_RATE")
	write(t0.Add(2*time.Minute), graph.NodeWrite{Label: "Threshold", ID: c.ID + ":THRESHOLD", Props: map[string]any{
		"amount": 44000.0, "currency": "EUR", "last_verified_at": verified,
	}}, "HAS_THRESHOLD")
	write(t0.Add(3*time.Minute), graph.NodeWrite{Label: "Timeline", ID: c.ID + ":DEADLINE", Props: map[string]any{
		"pref_label": "PAYE return deadline", "window_days": 14.0,
	}}, "FILING_DEADLINE")
	// Newest of all, but a capture's: never grounded.
	write(t0.Add(5*time.Minute), graph.NodeWrite{Label: "Rate", ID: c.ID + ":RATE:CAPTURED", Props: map[string]any{
		"pref_label": "PAYE captured rate", "percent": 99.0, graph.ProvenanceKey: string(graph.ProvenanceCapture),
	}}, "HAS_RATE")
	must(t, s.WriteNodesAndEdges(ctx, nil, []graph.EdgeWrite{{FromID: c.ID, Type: "RELATED_TO", ToID: other.ID}}, t0.Add(4*time.Minute)))

	got := ground(t, s, graph.GroundingQuery{ActiveIDs: []string{c.ID}})
	if len(got) != 1 || got[0].Mentioned {
		t.Fatalf("grounded %+v", got)
	}
	facts := got[0].Facts
	var order []string
	for _, f := range facts {
		order = append(order, f.NodeID)
	}
	want := []string{c.ID + ":DEADLINE", c.ID + ":THRESHOLD", c.ID + ":RATE"}
	if !slices.Equal(order, want) {
		t.Fatalf("facts %v, want %v (newest first, no related concept, no captured fact)", order, want)
	}
	deadline, threshold, rate := facts[0], facts[1], facts[2]
	if deadline.Kind != "Timeline" || deadline.Relationship != "FILING_DEADLINE" || deadline.Label != "PAYE return deadline" ||
		deadline.Properties["window_days"] != 14.0 || !deadline.UpdatedAt.Equal(t0.Add(3*time.Minute)) {
		t.Errorf("deadline fact %+v", deadline)
	}
	if rate.Label != "PAYE higher rate" || rate.Properties["percent"] != 40.0 || rate.Properties["quote"] != "40%" ||
		!slices.Equal(rate.SourceURLs, []string{"https://www.revenue.ie/paye-rates"}) || !rate.LastVerifiedAt.IsZero() {
		t.Errorf("rate fact (own source) %+v", rate)
	}
	if _, ok := rate.Properties["source_url"]; ok {
		t.Error("source_url left among the fact's values")
	}
	if threshold.Label != threshold.NodeID || threshold.Properties["currency"] != "EUR" ||
		!slices.Equal(threshold.SourceURLs, c.SourceURLs) || !threshold.LastVerifiedAt.Equal(verified) {
		t.Errorf("threshold fact (concept's source, own verification) %+v", threshold)
	}
	if _, ok := threshold.Properties["last_verified_at"]; ok {
		t.Error("last_verified_at left among the fact's values")
	}
	two := ground(t, s, graph.GroundingQuery{ActiveIDs: []string{c.ID}, MaxFactsPerConcept: 2})
	if len(two) != 1 || len(two[0].Facts) != 2 || two[0].Facts[0].NodeID != want[0] || two[0].Facts[1].NodeID != want[1] {
		t.Errorf("MaxFactsPerConcept 2 gave %+v", two)
	}
}

// writeFact links n to the concept by rel at time at; n is official unless
// it says otherwise.
func writeFact(t testing.TB, s graph.Store, conceptID string, at time.Time, n graph.NodeWrite, rel string) {
	t.Helper()
	if _, set := n.Props[graph.ProvenanceKey]; !set {
		n = graph.MarkOfficial([]graph.NodeWrite{n})[0]
	}
	must(t, s.WriteNodesAndEdges(context.Background(), []graph.NodeWrite{n}, []graph.EdgeWrite{{FromID: conceptID, Type: rel, ToID: n.ID}}, at))
}

func ground(t testing.TB, s graph.Store, q graph.GroundingQuery) []graph.GroundedConcept {
	t.Helper()
	got, err := s.Ground(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func find(t testing.TB, gcs []graph.GroundedConcept, id string) graph.GroundedConcept {
	t.Helper()
	for _, gc := range gcs {
		if gc.Node.ID == id {
			return gc
		}
	}
	t.Fatalf("%s not grounded; got %v", id, ids(gcs))
	return graph.GroundedConcept{}
}
