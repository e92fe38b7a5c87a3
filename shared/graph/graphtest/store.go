package graphtest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"regintel/shared/concept"
	"regintel/shared/graph"
)

func runConcepts(t *testing.T, newStore NewStore) {
	runAll(t, newStore, []subtest{
		{"UpsertAndReadBack", conceptsUpsertAndReadBack},
		{"SecondWriteKeepsCreatedAtAndMergesSets", conceptsSecondWriteKeepsCreatedAtAndMergesSets},
		{"WriteToAResolvedNodeKeepsItsParts", conceptsWriteToAResolvedNodeKeepsItsParts},
		{"ConcurrentUpsertsMakeOneNode", conceptsConcurrentUpsertsMakeOneNode},
		{"ManyConceptsInOneBatch", conceptsManyConceptsInOneBatch},
		{"SeedNodes", conceptsSeedNodes},
	})
}

func conceptsUpsertAndReadBack(t *testing.T, newStore NewStore) {
	s := newStore(t)
	ctx := context.Background()
	jur := UniqueJurisdiction()
	a := Concept(jur, "VAT", "Value-Added Tax", "VAT "+jur)
	b := Concept(jur, "VRT", "Vehicle Registration Tax "+jur)
	upsert(t, s, t0, a, b)
	nodes, err := s.GetNodesByIDs(ctx, []string{b.ID, "TAX:" + jur + ":MISSING", a.ID, b.ID})
	must(t, err)
	if len(nodes) != 2 || nodes[0].ID != b.ID || nodes[1].ID != a.ID {
		t.Fatalf("got %+v, want [%s %s] in that order", nodes, b.ID, a.ID)
	}
	got := nodes[1]
	if got.PrefLabel != "Value-Added Tax" || got.Jurisdiction != jur || got.Definition != "Value-Added Tax definition" {
		t.Errorf("read back %+v", got)
	}
	if !slices.Equal(got.Labels, []string{"Concept"}) {
		t.Errorf("labels = %v", got.Labels)
	}
	if !got.UpdatedAt.Equal(t0) || got.Properties["created_at"] != graph.Timestamp(t0) {
		t.Errorf("timestamps: updated %v created %v, want %v", got.UpdatedAt, got.Properties["created_at"], t0)
	}
	if urls := got.Properties["source_urls"]; !slices.Equal(urls.([]string), a.SourceURLs) {
		t.Errorf("source_urls = %v", urls)
	}
	labelNodes, err := s.GetNodesByIDs(ctx, []string{graph.AltLabelID("vat  " + jur), graph.AltLabelID(" value-added TAX ")})
	if err != nil || len(labelNodes) != 2 || labelNodes[0].Properties["text"] != "VAT "+jur || !slices.Contains(labelNodes[0].Labels, "Label") {
		t.Errorf("alias nodes = %+v, %v", labelNodes, err)
	}
}

func conceptsSecondWriteKeepsCreatedAtAndMergesSets(t *testing.T, newStore NewStore) {
	s := newStore(t)
	jur := UniqueJurisdiction()
	first := Concept(jur, "USC", "Universal Social Charge", "USC")
	upsert(t, s, t0, first)
	second := Concept(jur, "USC", "Irish universal social charge", "usc", "Universal Charge")
	second.SourceURLs = []string{"https://www.revenue.ie/en/USC", "https://www.gov.ie/usc"}
	second.Definition = "a different definition"
	later := t0.Add(48 * time.Hour)
	upsert(t, s, later, second)
	n := getOne(t, s, first.ID)
	if n.Properties["created_at"] != graph.Timestamp(t0) {
		t.Errorf("created_at changed: %v", n.Properties["created_at"])
	}
	if !n.UpdatedAt.Equal(later) {
		t.Errorf("updated_at = %v, want %v", n.UpdatedAt, later)
	}
	if n.PrefLabel != "Universal Social Charge" || n.Definition != "Universal Social Charge definition" {
		t.Errorf("first pref label/definition should stick: %q / %q", n.PrefLabel, n.Definition)
	}
	// A different pref label arriving later is kept as an alias; "usc"
	// is the same alias as "USC".
	if alt := n.Properties["alt_labels"].([]string); !slices.Equal(alt, []string{"USC", "Irish universal social charge", "Universal Charge"}) {
		t.Errorf("alt_labels = %v, want [USC Irish universal social charge Universal Charge]", alt)
	}
	if urls := n.Properties["source_urls"].([]string); !slices.Equal(urls, []string{"https://www.revenue.ie/en/USC", "https://www.gov.ie/usc"}) {
		t.Errorf("source_urls = %v", urls)
	}
}

func conceptsWriteToAResolvedNodeKeepsItsParts(t *testing.T, newStore NewStore) {
	s := newStore(t)
	jur := UniqueJurisdiction()
	legacy := "LEGACY:" + jur + ":PAYE"
	must(t, s.WriteNodesAndEdges(context.Background(), []graph.NodeWrite{{Label: "Concept", ID: legacy,
		Props: map[string]any{"domain": "TAX", "kind": "PAYE", "jurisdiction": jur, "pref_label": "Pay As You Earn", graph.ProvenanceKey: "official"}}}, nil, t0))
	captured := Concept(jur, "INCOME_TAX", "PAYE", "payroll tax")
	captured.ID = legacy
	upsert(t, s, t0.Add(time.Hour), captured)
	n := getOne(t, s, legacy)
	p := n.Properties
	if p["domain"] != "TAX" || p["kind"] != "PAYE" || n.Jurisdiction != jur || n.PrefLabel != "Pay As You Earn" {
		t.Errorf("resolved node rewritten: %+v", n)
	}
	if alt, _ := p["alt_labels"].([]string); !slices.Equal(alt, []string{"PAYE", "payroll tax"}) {
		t.Errorf("alt_labels = %v, want the captured names", alt)
	}
}

func conceptsConcurrentUpsertsMakeOneNode(t *testing.T, newStore NewStore) {
	s := newStore(t)
	jur := UniqueJurisdiction()
	const writers = 20
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := Concept(jur, "PRSI", "Pay Related Social Insurance", fmt.Sprintf("alias %d %s", i, jur))
			errs <- s.UpsertConcepts(context.Background(), []concept.Concept{c}, graph.ProvenanceOfficial, t0.Add(time.Duration(i)*time.Second))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	alt := getOne(t, s, concept.CanonicalID("TAX", jur, "PRSI")).Properties["alt_labels"].([]string)
	for i := range writers {
		if !slices.Contains(alt, fmt.Sprintf("alias %d %s", i, jur)) {
			t.Errorf("alias %d lost; alt_labels = %v", i, alt)
		}
	}
	if len(alt) != writers {
		t.Errorf("%d alt labels, want %d", len(alt), writers)
	}
}

func conceptsManyConceptsInOneBatch(t *testing.T, newStore NewStore) {
	s := newStore(t)
	jur := UniqueJurisdiction()
	batch := make([]concept.Concept, 50)
	want := make([]string, len(batch))
	for i := range batch {
		batch[i] = Concept(jur, fmt.Sprintf("K%02d", i), fmt.Sprintf("Concept %d", i), fmt.Sprintf("alias %d", i))
		want[i] = batch[i].ID
	}
	upsert(t, s, t0, batch...)
	nodes, err := s.GetNodesByIDs(context.Background(), want)
	if err != nil || len(nodes) != len(batch) {
		t.Errorf("read back %d of %d (%v)", len(nodes), len(batch), err)
	}
}

func conceptsSeedNodes(t *testing.T, newStore NewStore) {
	s := newStore(t)
	nodes, err := s.GetNodesByIDs(context.Background(), []string{"TAX:IE:VAT", "TAX:IE:VRT", "NOPE", "TAX:IE:VAT"})
	if err != nil || len(nodes) != 2 {
		t.Fatalf("got %d nodes (%v), want 2", len(nodes), err)
	}
	if ok, _ := s.HasUsefulDetail(context.Background(), "TAX:IE:VAT", t0.Add(time.Hour)); !ok {
		t.Error("VAT with HAS_RATE edges reported no useful detail")
	}
}

func runEnrichment(t *testing.T, newStore NewStore) {
	runAll(t, newStore, []subtest{
		{"HasUsefulDetail", enrichmentHasUsefulDetail},
		{"MarkEnrichmentRequested", func(t *testing.T, newStore NewStore) { markEnrichment(t, newStore(t)) }},
	})
}

func enrichmentHasUsefulDetail(t *testing.T, newStore NewStore) {
	s := newStore(t)
	ctx := context.Background()
	jur := UniqueJurisdiction()
	c := Concept(jur, "VAT", "Value-Added Tax")
	other := Concept(jur, "CGT", "Capital Gains Tax")
	upsert(t, s, t0, c, other)
	window := t0.Add(-30 * 24 * time.Hour)
	check := func(id string, since time.Time, want bool) {
		t.Helper()
		got, err := s.HasUsefulDetail(ctx, id, since)
		if err != nil || got != want {
			t.Errorf("HasUsefulDetail(%s, %v) = %v, %v; want %v", id, since, got, err, want)
		}
	}
	check(c.ID, window, false)
	check("TAX:"+jur+":UNKNOWN", window, false)

	must(t, s.WriteNodesAndEdges(ctx, []graph.NodeWrite{{Label: "Concept", ID: c.ID, Props: map[string]any{"last_verified_at": t0}}}, nil, t0))
	check(c.ID, window, true)
	check(c.ID, t0.Add(time.Minute), false)

	// A non-detail edge does not count, nor a rate no official source
	// gave (it is never shown); an official rate does.
	must(t, s.WriteNodesAndEdges(ctx, nil, []graph.EdgeWrite{{FromID: other.ID, Type: "RELATED_TO", ToID: c.ID}}, t0))
	check(other.ID, window, false)
	must(t, s.WriteNodesAndEdges(ctx, []graph.NodeWrite{{Label: "Rate", ID: other.ID + ":RATE:OLD"}},
		[]graph.EdgeWrite{{FromID: other.ID, Type: "HAS_RATE", ToID: other.ID + ":RATE:OLD"}}, t0))
	check(other.ID, window, false)
	must(t, s.WriteNodesAndEdges(ctx, graph.MarkOfficial([]graph.NodeWrite{{Label: "Rate", ID: other.ID + ":RATE"}}),
		[]graph.EdgeWrite{{FromID: other.ID, Type: "HAS_RATE", ToID: other.ID + ":RATE"}}, t0))
	check(other.ID, window, true)
}

func markEnrichment(t *testing.T, s graph.Store) {
	ctx := context.Background()
	jur := UniqueJurisdiction()
	c := Concept(jur, "VRT", "Vehicle Registration Tax")
	upsert(t, s, t0, c)
	window := 30 * 24 * time.Hour
	mark := func(now time.Time) bool {
		t.Helper()
		ok, err := s.MarkEnrichmentRequested(ctx, c.ID, now, now.Add(-window))
		must(t, err)
		return ok
	}
	if !mark(t0) {
		t.Error("first request not marked")
	}
	if mark(t0.Add(time.Hour)) {
		t.Error("second request inside the window marked again")
	}
	afterWindow := t0.Add(window + time.Hour)
	if !mark(afterWindow) {
		t.Error("request after the window not marked")
	}
	// Clearing another mark is a no-op; clearing this one re-opens the window.
	must(t, s.ClearEnrichmentRequested(ctx, c.ID, t0))
	if mark(afterWindow.Add(time.Minute)) {
		t.Error("a clear of an older mark removed the current one")
	}
	must(t, s.ClearEnrichmentRequested(ctx, c.ID, afterWindow))
	if !mark(afterWindow.Add(time.Minute)) {
		t.Error("request after clearing the mark not marked")
	}
	if ok, err := s.MarkEnrichmentRequested(ctx, "TAX:"+jur+":MISSING", t0, t0); ok || err != nil {
		t.Errorf("missing concept: %v, %v", ok, err)
	}

	oneConcurrentMarkWins(t, s, c.ID, t0.Add(10*window), window)
}

// oneConcurrentMarkWins: of several concurrent callers exactly one marks.
func oneConcurrentMarkWins(t *testing.T, s graph.Store, id string, now time.Time, window time.Duration) {
	var wg sync.WaitGroup
	results := make(chan bool, 10)
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := s.MarkEnrichmentRequested(context.Background(), id, now, now.Add(-window))
			if err != nil {
				t.Error(err)
			}
			results <- ok
		}()
	}
	wg.Wait()
	close(results)
	won := 0
	for ok := range results {
		if ok {
			won++
		}
	}
	if won != 1 {
		t.Errorf("%d concurrent callers marked enrichment, want 1", won)
	}
}

func runWrites(t *testing.T, newStore NewStore) {
	runAll(t, newStore, []subtest{
		{"NodesAndEdges", writesNodesAndEdges},
		{"AllOrNothing", writesAllOrNothing},
		{"RejectsNonWhitelisted", writesRejectsNonWhitelisted},
		{"SchemaTwice", writesSchemaTwice},
	})
}

func writesNodesAndEdges(t *testing.T, newStore NewStore) {
	s := newStore(t)
	ctx := context.Background()
	jur := UniqueJurisdiction()
	c := Concept(jur, "VAT", "Value-Added Tax")
	upsert(t, s, t0, c)
	rateID := c.ID + ":RATE:STANDARD"
	nodes := graph.MarkOfficial([]graph.NodeWrite{{Label: "Rate", ID: rateID, Props: map[string]any{"percent": 23.0, "band": "standard", "effective_from": t0}}})
	edges := []graph.EdgeWrite{{FromID: c.ID, Type: "HAS_RATE", ToID: rateID}}
	must(t, s.WriteNodesAndEdges(ctx, nodes, edges, t0))
	must(t, s.WriteNodesAndEdges(ctx, nodes, edges, t0.Add(time.Hour)))
	got := getOne(t, s, rateID)
	if got.Properties["percent"] != 23.0 || got.Properties["effective_from"] != graph.Timestamp(t0) || got.Properties["created_at"] != graph.Timestamp(t0) {
		t.Errorf("rate node = %+v", got)
	}
	if ok, _ := s.HasUsefulDetail(ctx, c.ID, t0); !ok {
		t.Error("concept with a rate has no useful detail")
	}
}

func writesAllOrNothing(t *testing.T, newStore NewStore) {
	s := newStore(t)
	ctx := context.Background()
	id := "TAX:" + UniqueJurisdiction() + ":RATE"
	err := s.WriteNodesAndEdges(ctx, []graph.NodeWrite{{Label: "Rate", ID: id}},
		[]graph.EdgeWrite{{FromID: id + ":MISSING", Type: "HAS_RATE", ToID: id}}, time.Now())
	if err == nil {
		t.Fatal("edge to a missing node accepted")
	}
	if nodes, _ := s.GetNodesByIDs(ctx, []string{id}); len(nodes) != 0 {
		t.Fatal("a failed write left its nodes behind")
	}
}

func writesRejectsNonWhitelisted(t *testing.T, newStore NewStore) {
	s := newStore(t)
	ctx := context.Background()
	if err := s.WriteNodesAndEdges(ctx, []graph.NodeWrite{{Label: "User", ID: "x"}}, nil, t0); err == nil {
		t.Error("non-whitelisted label accepted")
	}
	jur := UniqueJurisdiction()
	a, b := Concept(jur, "A", "A"), Concept(jur, "B", "B")
	upsert(t, s, t0, a, b)
	if err := s.WriteNodesAndEdges(ctx, nil, []graph.EdgeWrite{{FromID: a.ID, Type: "OWNS", ToID: b.ID}}, t0); err == nil {
		t.Error("non-whitelisted relationship accepted")
	}
}

func writesSchemaTwice(t *testing.T, newStore NewStore) {
	s := newStore(t)
	must(t, s.ApplySchema(context.Background()))
	must(t, s.ApplySchema(context.Background()))
}
