package enrich

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"regintel/shared/extract"

	"regintel/shared/queue"
)

func TestSlugAndIDs(t *testing.T) {
	if got := Slug("  Second reduced rate (9%) "); got != "second-reduced-rate-9" {
		t.Fatalf("slug %q", got)
	}
	if got := Slug(strings.Repeat("abc ", 40)); len(got) > 61 {
		t.Fatalf("slug not capped: %d", len(got))
	}
	if got := RateID("TAX:IE:VAT", "Standard rate"); got != "TAX:IE:VAT:RATE:standard-rate" {
		t.Fatalf("rate id %q", got)
	}
	vat := "https://www.revenue.ie/en/vat/index.aspx"
	if got := GuidanceID(vat); got != "GUIDANCE:www-revenue-ie-en-vat-index-aspx" || got == GuidanceID("https://www.revenue.ie/en/vrt/index.aspx") {
		t.Fatalf("guidance id %q", got)
	}
}

func TestParseFactsValidatesSchema(t *testing.T) {
	valid := `{"concept":{"name":"","source_url":"","quote":""},"rates":[{"name":"Standard rate","percent":23,"applies_to":"","effective_from":"","source_url":"https://x.ie/a","quote":"is 23%"}],
		"thresholds":[],"timelines":[],"sections":[],"related_concepts":[]}`
	if _, err := ParseFacts(json.RawMessage(valid)); err != nil {
		t.Fatalf("valid arguments rejected: %v", err)
	}
	for name, raw := range map[string]string{
		"not json":          `{"rates":`,
		"missing list":      strings.Replace(valid, `"related_concepts":[]`, `"notes":[]`, 1),
		"extra property":    strings.Replace(valid, `"related_concepts":[]`, `"related_concepts":[],"notes":"x"`, 1),
		"no concept":        strings.Replace(valid, `"concept":{"name":"","source_url":"","quote":""},`, ``, 1),
		"percent over 100":  strings.Replace(valid, `"percent":23`, `"percent":230`, 1),
		"no quote":          strings.Replace(valid, `,"quote":"is 23%"`, ``, 1),
		"unknown kind":      `{"concept":{"name":"","source_url":"","quote":""},"rates":[],"thresholds":[],"timelines":[{"name":"x","kind":"forever","window":1,"unit":"days","source_url":"u","quote":"abc"}],"sections":[],"related_concepts":[]}`,
		"fractional window": `{"concept":{"name":"","source_url":"","quote":""},"rates":[],"thresholds":[],"timelines":[{"name":"x","kind":"lookback","window":1.5,"unit":"days","source_url":"u","quote":"abc"}],"sections":[],"related_concepts":[]}`,
		"long quote":        strings.Replace(valid, `"is 23%"`, `"`+strings.Repeat("q", MaxQuoteLen+1)+`"`, 1),
		"date not ISO":      strings.Replace(valid, `"effective_from":""`, `"effective_from":"1 May 2025"`, 1),
		"no date field":     strings.Replace(valid, `"effective_from":"",`, ``, 1),
	} {
		if _, err := ParseFacts(json.RawMessage(raw)); !errors.Is(err, ErrInvalidArguments) {
			t.Errorf("%s: err %v, want ErrInvalidArguments", name, err)
		}
	}
}

func TestBuildPlanDropsUnsupportedFacts(t *testing.T) {
	job := queue.EnrichmentRequested{ConceptID: "TAX:IE:VAT", Domain: "TAX", Kind: "VAT", Jurisdiction: "IE"}
	page := "https://www.revenue.ie/vat"
	texts := map[string]string{page: "The standard rate of VAT is 23%."}
	facts := Facts{Rates: []Rate{
		{Name: "Standard rate", Percent: 23, Evidence: Evidence{SourceURL: page, Quote: "standard rate of VAT is 23%"}},
		{Name: "Standard rate", Percent: 23, Evidence: Evidence{SourceURL: page, Quote: "standard rate of VAT is 23%"}}, // repeat
		{Name: "Luxury rate", Percent: 30, Evidence: Evidence{SourceURL: page, Quote: "The luxury rate is 30%"}},        // not in page
		{Name: "Other page", Percent: 5, Evidence: Evidence{SourceURL: "https://elsewhere.example/x", Quote: "is 23%"}}, // not a document
		{Name: "%%%", Percent: 1, Evidence: Evidence{SourceURL: page, Quote: "is 23%"}},                                 // no usable id
	}}
	p := buildPlan(job, facts, texts, extract.ContainsQuote)
	if p.kept != 1 || p.dropped != 4 {
		t.Fatalf("kept %d dropped %d", p.kept, p.dropped)
	}
	// The rate, a value of its series, and the page's Guidance node linked
	// to the concept.
	if len(p.values) != 1 || len(p.nodes) != 1 || len(p.edges) != 1 || p.values[0].Node.Props["series"] != "TAX:IE:VAT:RATE:standard-rate" ||
		p.values[0].Relationship != "HAS_RATE" || p.values[0].ConceptID != job.ConceptID || p.edges[0].Type != "HAS_GUIDANCE" {
		t.Fatalf("plan %+v", p)
	}
}

func TestEffectiveDateOnlyWhenTheQuoteStatesIt(t *testing.T) {
	for _, tc := range []struct{ quote, date, want string }{
		{"From 1 January 2025 the rate is 9%", "2025-01-01", "2025-01-01"},
		{"with effect from 1st October 2024, 4.1%", "2024-10-01", "2024-10-01"},
		{"applies from 01/09/2023", "2023-09-01", "2023-09-01"},
		{"effective from September 1, 2023", "2023-09-01", "2023-09-01"},
		// The model's date is not the one the quote states, or none is.
		{"From 1 January 2025 the rate is 9%", "2024-01-01", ""},
		{"The standard rate of VAT is 23%.", "2010-01-01", ""},
		{"From 1 January 2025", "", ""},
		{"From 1 January 2025", "2025-13-01", ""},
	} {
		if got := statedDate(tc.quote, tc.date); got != tc.want {
			t.Errorf("statedDate(%q, %q) = %q, want %q", tc.quote, tc.date, got, tc.want)
		}
	}
}

func TestTimelineRelationships(t *testing.T) {
	for kind, want := range map[string]string{"lookback": "LOOKBACK_WINDOW", "filing_deadline": "FILING_DEADLINE", "other": "HAS_TIMELINE"} {
		if got := TimelineRelationship(kind); got != want {
			t.Errorf("%s: %s, want %s", kind, got, want)
		}
	}
}
