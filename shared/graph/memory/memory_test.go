package memory

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

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func vat(alt ...string) concept.Concept {
	return concept.Normalize(concept.Concept{Domain: "tax", Jurisdiction: "ie", Kind: "vat", PrefLabel: "Value-Added Tax", AltLabels: alt, Definition: "A tax on supplies.", SourceURLs: []string{"https://www.revenue.ie/en/vat/index.aspx"}})
}

func getOne(t *testing.T, s *Store, id string) graph.Node {
	t.Helper()
	nodes, err := s.GetNodesByIDs(context.Background(), []string{id})
	if err != nil || len(nodes) != 1 {
		t.Fatalf("GetNodesByIDs(%s) = %v, %v", id, nodes, err)
	}
	return nodes[0]
}

func TestUpsertKeepsCreatedAtAndMergesLabels(t *testing.T) {
	ctx := context.Background()
	s := New()
	if err := s.UpsertConcepts(ctx, []concept.Concept{vat("VAT")}, t0); err != nil {
		t.Fatal(err)
	}
	later := t0.Add(time.Hour)
	second := vat("Irish VAT", "vat")
	second.PrefLabel = "Irish value added tax"
	second.SourceURLs = []string{"https://www.revenue.ie/en/vat/vat-rates/index.aspx"}
	if err := s.UpsertConcepts(ctx, []concept.Concept{second}, later); err != nil {
		t.Fatal(err)
	}
	n := getOne(t, s, "TAX:IE:VAT")
	if n.PrefLabel != "Value-Added Tax" {
		t.Errorf("pref label changed to %q", n.PrefLabel)
	}
	if got := n.Properties["created_at"]; got != graph.Timestamp(t0) {
		t.Errorf("created_at = %v, want %v", got, graph.Timestamp(t0))
	}
	if !n.UpdatedAt.Equal(later) {
		t.Errorf("updated_at = %v, want %v", n.UpdatedAt, later)
	}
	wantAlt := []string{"VAT", "Irish VAT", "Irish value added tax"}
	if got := n.Properties["alt_labels"].([]string); !slices.Equal(got, wantAlt) {
		t.Errorf("alt_labels = %v, want %v", got, wantAlt)
	}
	if got := n.Properties["source_urls"].([]string); len(got) != 2 {
		t.Errorf("source_urls = %v, want both", got)
	}
	lbl := getOne(t, s, graph.AltLabelID(" irish  VAT "))
	if !slices.Contains(lbl.Labels, "Label") {
		t.Errorf("alias node labels = %v", lbl.Labels)
	}
}

func TestConcurrentUpsertsMakeOneNodeWithAllLabels(t *testing.T) {
	s := New()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.UpsertConcepts(context.Background(), []concept.Concept{vat(fmt.Sprintf("alias %d", i))}, t0); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	n := getOne(t, s, "TAX:IE:VAT")
	if got := len(n.Properties["alt_labels"].([]string)); got != 20 {
		t.Errorf("alt labels = %d, want 20", got)
	}
}

func TestSeededDetailAndEnrichmentGate(t *testing.T) {
	ctx := context.Background()
	s, err := NewSeeded(t0)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := s.GetNodesByIDs(ctx, []string{"TAX:IE:VAT", "TAX:IE:VRT", "NOPE", "TAX:IE:VAT"})
	if err != nil || len(nodes) != 2 {
		t.Fatalf("got %d nodes (%v), want 2", len(nodes), err)
	}
	fresh := t0.Add(-30 * 24 * time.Hour)
	if ok, _ := s.HasUsefulDetail(ctx, "TAX:IE:VAT", fresh); !ok {
		t.Error("VAT with HAS_RATE edges reported no useful detail")
	}
	if ok, _ := s.HasUsefulDetail(ctx, "TAX:IE:VRT", fresh); ok {
		t.Error("VRT without detail reported useful detail")
	}
	if err := s.UpsertNode("Concept", "TAX:IE:VRT", map[string]any{"last_verified_at": graph.Timestamp(t0)}, t0); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.HasUsefulDetail(ctx, "TAX:IE:VRT", fresh); !ok {
		t.Error("recently verified VRT reported no useful detail")
	}
	if ok, _ := s.HasUsefulDetail(ctx, "TAX:IE:VRT", t0.Add(time.Second)); ok {
		t.Error("verification older than the window counted as fresh")
	}

	window := 30 * 24 * time.Hour
	first, _ := s.MarkEnrichmentRequested(ctx, "TAX:IE:USC", t0, t0.Add(-window))
	again, _ := s.MarkEnrichmentRequested(ctx, "TAX:IE:USC", t0.Add(time.Hour), t0.Add(time.Hour-window))
	afterWindow, _ := s.MarkEnrichmentRequested(ctx, "TAX:IE:USC", t0.Add(window+time.Hour), t0.Add(time.Hour))
	missing, _ := s.MarkEnrichmentRequested(ctx, "NOPE", t0, t0)
	if !first || again || !afterWindow || missing {
		t.Errorf("mark enrichment: first=%v again=%v afterWindow=%v missing=%v, want true false true false", first, again, afterWindow, missing)
	}
	marked := t0.Add(window + time.Hour)
	_ = s.ClearEnrichmentRequested(ctx, "TAX:IE:USC", t0) // an older mark: no-op
	if again, _ := s.MarkEnrichmentRequested(ctx, "TAX:IE:USC", marked.Add(time.Minute), marked.Add(-window)); again {
		t.Error("clearing an older mark removed the current one")
	}
	_ = s.ClearEnrichmentRequested(ctx, "TAX:IE:USC", marked)
	if ok, _ := s.MarkEnrichmentRequested(ctx, "TAX:IE:USC", marked.Add(time.Minute), marked.Add(-window)); !ok {
		t.Error("not marked again after the mark was cleared")
	}
}

func TestRejectsNonWhitelisted(t *testing.T) {
	s := New()
	if err := s.UpsertNode("User", "u1", nil, t0); err == nil {
		t.Error("non-whitelisted label accepted")
	}
	if err := s.UpsertEdge("a", "OWNS", "b"); err == nil {
		t.Error("non-whitelisted relationship accepted")
	}
}
