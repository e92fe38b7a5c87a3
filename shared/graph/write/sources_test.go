package write

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"testing"

	"regintel/shared/concept"
	"regintel/shared/graph"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/pii"
	"regintel/shared/pii/piicases"
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
	res, err := svc.ResolveConcepts(context.Background(), []concept.Concept{c}, graph.ProvenanceOfficial)
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

// FuzzGuardKeepsFlaggedTextOut: whatever text a captured concept carries in
// whichever field, nothing the personal-data detectors flag (in any form
// the guard derives) reaches the graph. The seeds are the shared probe
// table, each in its field, and the regulatory texts that must pass.
func FuzzGuardKeepsFlaggedTextOut(f *testing.F) {
	fieldIndex := map[piicases.Field]uint8{piicases.FieldDomain: 0, piicases.FieldKind: 1, piicases.FieldPrefLabel: 3,
		piicases.FieldAltLabels: 4, piicases.FieldDefinition: 5}
	for _, tc := range piicases.All() {
		f.Add(fieldIndex[tc.Field], tc.Text)
	}
	for i, text := range piicases.Legitimate {
		f.Add(uint8(3+i%3), text)
	}
	f.Add(uint8(6), "https://www.revenue.ie/?email=a%40b.ie")
	f.Fuzz(func(t *testing.T, field uint8, text string) {
		c := concept.Concept{Domain: "TAX", Jurisdiction: "IE", Kind: "VAT", PrefLabel: "Value-Added Tax"}
		switch field % 7 {
		case 0:
			c.Domain = text
		case 1:
			c.Kind = text
		case 2:
			c.Jurisdiction = text
		case 3:
			c.PrefLabel = text
		case 4:
			c.AltLabels = []string{text}
		case 5:
			c.Definition = text
		case 6:
			c.SourceURLs = []string{text}
		}
		store := graphmem.New()
		svc := NewService(store, WithLogger(slogDiscard()))
		res, err := svc.ResolveConcepts(context.Background(), []concept.Concept{c}, graph.ProvenanceOfficial)
		if err != nil || len(res.Written) == 0 {
			return
		}
		nodes, err := store.GetNodesByIDs(context.Background(), res.Written)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes {
			texts := append(nodeStrings(n.Properties, "source_urls"), n.ID, n.PrefLabel)
			for _, s := range texts {
				if kind, found := findPIIIn(s, pii.AllKinds); found {
					t.Fatalf("%q in field %d reached the graph as %q (%s)", text, field%7, s, kind)
				}
			}
			for _, s := range nodeStrings(n.Properties) {
				if kind, found := findPII(s); found {
					t.Fatalf("%q in field %d reached the graph as %q (%s)", text, field%7, s, kind)
				}
			}
		}
	})
}

// nodeStrings returns the string values of props, leaving out the keys
// in except.
func nodeStrings(props map[string]any, except ...string) []string {
	var out []string
	for k, v := range props {
		if slices.Contains(except, k) {
			continue
		}
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []string:
			out = append(out, x...)
		case []any:
			for _, e := range x {
				if s, ok := e.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

func slogDiscard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
