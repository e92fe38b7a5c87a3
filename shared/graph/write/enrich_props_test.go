package write

import (
	"strings"
	"testing"

	"regintel/shared/graph"
)

// Enrichment writes provenance (source_url, quote) on fact nodes and the
// processed content hashes on the concept; hashes must be exactly hex
// SHA-256, and a source_url must be an http(s) URL.
func TestEnrichmentProperties(t *testing.T) {
	g := NewGuard()
	hash := strings.Repeat("0a1b2c3d", 8)
	ok := []graph.NodeWrite{
		{Label: "Concept", ID: "TAX:IE:VAT", Props: map[string]any{"ingestion_status": "enriched", SourceContentHashesKey: []string{hash}}},
		{Label: "Rate", ID: "TAX:IE:VAT:RATE:standard-rate", Props: map[string]any{"source_url": "https://www.revenue.ie/en/vat/", "quote": "The standard rate of VAT is 23%.", "percent": 23.0}},
		{Label: "Timeline", ID: "TAX:IE:VAT:TIMELINE:x", Props: map[string]any{"window": int64(4), "unit": "years", "kind": "lookback"}},
		{Label: "Section", ID: "TAX:IE:VAT:SECTION:46", Props: map[string]any{"excerpt": "sets out the rates"}},
	}
	for _, n := range ok {
		if err := g.CheckNode(n); err != nil {
			t.Errorf("%s rejected: %v", n.ID, err)
		}
	}
	bad := map[string]graph.NodeWrite{
		"hash with text":     {Label: "Concept", ID: "TAX:IE:VAT", Props: map[string]any{SourceContentHashesKey: []string{"call 087 123 4567"}}},
		"short hash":         {Label: "Concept", ID: "TAX:IE:VAT", Props: map[string]any{SourceContentHashesKey: []string{"abc"}}},
		"source_url not url": {Label: "Rate", ID: "R", Props: map[string]any{"source_url": "file:///etc/passwd"}},
		"quote with email":   {Label: "Rate", ID: "R", Props: map[string]any{"quote": "write to someone@example.com"}},
	}
	for name, n := range bad {
		if err := g.CheckNode(n); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	for _, typ := range []string{"CITES", "LOOKBACK_WINDOW", "FILING_DEADLINE", "RELATED_TO"} {
		if err := g.CheckEdge(graph.EdgeWrite{FromID: "A", Type: typ, ToID: "B"}); err != nil {
			t.Errorf("%s rejected: %v", typ, err)
		}
	}
}
