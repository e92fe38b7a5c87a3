package write

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"regintel/shared/concept"
	"regintel/shared/graph"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/sources"
)

// TestConceptKeepsOfficialSourceURLsOnly re-runs the probe that stored a
// phishing look-alike and a URL with a query in the shared graph: a
// captured concept is written with its official sources only, each without
// the query parameters its host does not list.
func TestConceptKeepsOfficialSourceURLsOnly(t *testing.T) {
	store := graphmem.New()
	svc, _ := newTestService(store)
	c := concept.Concept{Domain: "TAX", Jurisdiction: "IE", Kind: "VAT", PrefLabel: "Value-Added Tax", SourceURLs: []string{
		"https://www.revenue.ie.evil.example/",
		"https://www.revenue.ie/en/vat/index.aspx",
		"http://www.revenue.ie/en/vat/rates.aspx",
		"https://www.revenue.ie/en/vat/vat-rates/index.aspx?utm_source=newsletter&session=4f9a2c",
		"https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX:32006L0112&qid=1700000000",
		"https://blog.example.com/vat-explained",
	}}
	res, err := svc.ResolveConcepts(context.Background(), []concept.Concept{c})
	if err != nil || len(res.Written) != 1 || len(res.Rejected) != 0 {
		t.Fatalf("res %+v, err %v", res, err)
	}
	nodes, err := store.GetNodesByIDs(context.Background(), []string{"TAX:IE:VAT"})
	if err != nil || len(nodes) != 1 {
		t.Fatalf("nodes %+v, err %v", nodes, err)
	}
	got := fmt.Sprint(nodes[0].Properties["source_urls"])
	want := fmt.Sprint([]string{
		"https://www.revenue.ie/en/vat/index.aspx",
		"https://www.revenue.ie/en/vat/vat-rates/index.aspx",
		"https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX%3A32006L0112",
	})
	if got != want {
		t.Fatalf("stored source_urls %s\nwant %s", got, want)
	}
}

// TestGuardRefusesUnofficialURLsOnNodesAndEdges: a generic node or edge
// write whose url, source_url or source_urls is off the allowlist, or not
// in stored form, is rejected.
func TestGuardRefusesUnofficialURLsOnNodesAndEdges(t *testing.T) {
	g := NewGuard()
	official := "https://www.revenue.ie/en/vat/index.aspx"
	for _, u := range []string{
		"https://www.revenue.ie.evil.example/",
		"http://www.revenue.ie/en/vat/index.aspx",
		"https://www.revenue.ie/en/vat/index.aspx?ppsn=x",
		"https://WWW.REVENUE.IE/en/vat/index.aspx",
		"https://127.0.0.1/",
	} {
		for name, err := range map[string]error{
			"guidance url": g.CheckNode(graph.NodeWrite{Label: "Guidance", ID: "GUIDANCE:1", Props: map[string]any{"url": u}}),
			"rate source":  g.CheckNode(graph.NodeWrite{Label: "Rate", ID: "RATE:1", Props: map[string]any{"source_url": u}}),
			"node sources": g.CheckNode(graph.NodeWrite{Label: "Rule", ID: "RULE:1", Props: map[string]any{"source_urls": []string{official, u}}}),
			"edge sources": g.CheckEdge(graph.EdgeWrite{FromID: "TAX:IE:VAT", Type: "HAS_RATE", ToID: "RATE:1", Props: map[string]any{"source_urls": []string{u}}}),
		} {
			var rej *Rejection
			if !errors.As(err, &rej) || rej.Reason != ReasonInvalidSourceURL {
				t.Errorf("%s %s: err = %v", name, u, err)
			}
		}
	}
	if err := g.CheckNode(graph.NodeWrite{Label: "Guidance", ID: "GUIDANCE:1", Props: map[string]any{"url": official}}); err != nil {
		t.Errorf("official url refused: %v", err)
	}
	if err := g.CheckEdge(graph.EdgeWrite{FromID: "TAX:IE:VAT", Type: "HAS_RATE", ToID: "RATE:1", Props: map[string]any{"source_urls": []string{official}}}); err != nil {
		t.Errorf("official edge source refused: %v", err)
	}
}

// TestWithSourcesTakesTheFetchersCatalog: the enrichment's writes cite what
// its fetcher may fetch (in tests, a local site).
func TestWithSourcesTakesTheFetchersCatalog(t *testing.T) {
	local, err := sources.Parse([]byte(`{"allowlist":[],"sources":[]}`), sources.Options{ExtraHostsForTests: []string{"127.0.0.1:8443"}})
	if err != nil {
		t.Fatal(err)
	}
	store := graphmem.New()
	svc := NewService(store, WithSources(local))
	node := graph.NodeWrite{Label: "Guidance", ID: "GUIDANCE:LOCAL", Props: map[string]any{"url": "https://127.0.0.1:8443/en/vat/"}}
	res, err := svc.Write(context.Background(), []graph.NodeWrite{node}, nil)
	if err != nil || !slices.Equal(res.Written, []string{"GUIDANCE:LOCAL"}) {
		t.Fatalf("res %+v, err %v", res, err)
	}
	if res, _ := NewService(graphmem.New()).Write(context.Background(), []graph.NodeWrite{node}, nil); len(res.Rejected) != 1 {
		t.Fatalf("the official catalog accepted a local url: %+v", res)
	}
}
