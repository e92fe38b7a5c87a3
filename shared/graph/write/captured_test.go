package write

import (
	"context"
	"errors"
	"strings"
	"testing"

	"regintel/shared/concept"
	"regintel/shared/graph"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/graph/seeddata"
	"regintel/shared/pii"
)

// captured is a clean capture_concepts entry, as the model sends it.
func captured() concept.Concept {
	return concept.Concept{Domain: "tax", Kind: "VAT", Jurisdiction: "IE", PrefLabel: "Value-Added Tax",
		AltLabels: []string{"VAT"}, Definition: "A tax on supplies.", SourceURLs: []string{"https://www.revenue.ie/en/vat/index.aspx"}}
}

// personalDataForms are captures hiding personal data in a field the id is
// made of, or in an encoded form, each with the field and kind it must be
// rejected for. Normalising turns "jane.roe@example.com" into
// JANE_ROE_EXAMPLE_COM, words no detector can tell from a name, and
// recomputes the id: those two are caught in the raw capture only, which is
// why the chat engine checks it before normalising.
var personalDataForms = []struct {
	name    string
	edit    func(*concept.Concept)
	field   string
	kind    pii.Kind
	rawOnly bool
}{
	{"IBAN as kind", func(c *concept.Concept) { c.Kind = "IE29 AIBK 9311 5212 3456 78" }, "kind", pii.KindIBAN, false},
	{"phone in kind", func(c *concept.Concept) { c.Kind = "callback 087 123 4567" }, "kind", pii.KindPhone, false},
	{"email as domain", func(c *concept.Concept) { c.Domain = "jane.roe@example.com" }, "domain", pii.KindEmail, true},
	{"full-width at sign", func(c *concept.Concept) { c.AltLabels = []string{"jane.roe＠example.com"} }, "alt_labels", pii.KindEmail, false},
	{"dotted phone", func(c *concept.Concept) { c.AltLabels = []string{"VAT", "087.123.4567"} }, "alt_labels", pii.KindPhone, false},
	{"spaced PPSN", func(c *concept.Concept) { c.AltLabels = []string{"1234567 T"} }, "alt_labels", pii.KindPPSN, false},
	{"URL-encoded email", func(c *concept.Concept) { c.PrefLabel = "jane.roe%40example.com" }, "pref_label", pii.KindEmail, false},
	{"HTML entity email", func(c *concept.Concept) { c.Definition = "write to jane.roe&#64;example.com" }, "definition", pii.KindEmail, false},
	{"email in source URL", func(c *concept.Concept) {
		c.SourceURLs = []string{"https://www.revenue.ie/contact?to=jane.roe%40example.com"}
	}, "source_urls", pii.KindEmail, false},
	{"IBAN as canonical id part", func(c *concept.Concept) { c.Kind = "IE29_AIBK_9311_5212_3456_78" }, "kind", pii.KindIBAN, false},
	{"PPSN in an incoming id", func(c *concept.Concept) { c.ID = "TAX:IE:PPSN_1234567_T" }, "id", pii.KindPPSN, true},
}

func TestCheckCapturedRejectsEveryForm(t *testing.T) {
	for _, tc := range personalDataForms {
		t.Run(tc.name, func(t *testing.T) {
			c := captured()
			tc.edit(&c)
			for name, in := range map[string]concept.Concept{"raw": c, "normalised": concept.Normalize(c)} {
				if tc.rawOnly && name == "normalised" {
					continue
				}
				var rej *Rejection
				if err := CheckCaptured(in); !errors.As(err, &rej) {
					t.Fatalf("%s: accepted", name)
				}
				if rej.Reason != ReasonPIIValue || rej.PIIKind != tc.kind || rej.ConceptID != "" {
					t.Errorf("%s: rejection %+v, want %s in %s with no concept id", name, rej, tc.kind, tc.field)
				}
				if name == "raw" && rej.Field != tc.field {
					t.Errorf("raw: field %q, want %q", rej.Field, tc.field)
				}
			}
		})
	}
}

func TestCheckCapturedAcceptsRegulatoryText(t *testing.T) {
	ds, err := seeddata.Load()
	if err != nil {
		t.Fatal(err)
	}
	concepts := append([]concept.Concept{}, ds.Concepts...)
	for _, c := range ds.Concepts {
		concepts = append(concepts, concept.Normalize(c))
	}
	c := captured()
	c.Kind, c.PrefLabel = "PRSI Class S", "PRSI Class S"
	c.AltLabels = []string{"Cáin Bhreisluacha", "€1,250", "Directive 2006/112/EC", "section 811C", "S.I. No. 123 of 2013", "13.5% rate", "Class A1+"}
	c.Definition = "Self-employed people with income of €5,000 or more pay 4.1%."
	concepts = append(concepts, c, concept.Normalize(c))
	for _, c := range concepts {
		if err := CheckCaptured(c); err != nil {
			t.Errorf("%s: %v", c.PrefLabel, err)
		}
	}
}

// TestServiceKeepsCapturedPersonalDataOutOfTheGraph: through the write
// service none of the forms reaches the graph, and neither the value nor
// the id it would have had is logged.
func TestServiceKeepsCapturedPersonalDataOutOfTheGraph(t *testing.T) {
	ctx := context.Background()
	store := graphmem.New()
	svc, logs := newTestService(store)
	for _, tc := range personalDataForms {
		c := captured()
		tc.edit(&c)
		inputs := []concept.Concept{c}
		if !tc.rawOnly {
			inputs = append(inputs, concept.Normalize(c))
		}
		for _, in := range inputs {
			res, err := svc.ResolveConcepts(ctx, []concept.Concept{in}, graph.ProvenanceOfficial)
			if err != nil || len(res.Written) != 0 || len(res.Rejected) != 1 {
				t.Errorf("%s: result %+v, %v", tc.name, res, err)
			}
		}
	}
	changes, err := store.Changes(ctx, graph.ChangeQuery{Limit: 100})
	if err != nil || len(changes) != 0 {
		t.Fatalf("graph changed: %d changes (%v)", len(changes), err)
	}
	out := logs.String()
	for _, leak := range []string{"AIBK", "087", "jane", "roe", "1234567", "CALLBACK", "example"} {
		if strings.Contains(strings.ToLower(out), strings.ToLower(leak)) {
			t.Errorf("log holds %q: %s", leak, out)
		}
	}
	if !strings.Contains(out, `"concept_id_withheld":true`) {
		t.Errorf("log lacks the withheld marker: %s", out)
	}
}

func TestServiceHandsOutNoUnguardedWriter(t *testing.T) {
	svc := NewService(graphmem.New())
	for name, v := range map[string]any{"service": svc, "reads": svc.Reads()} {
		if _, ok := v.(graph.Writer); ok {
			t.Errorf("the %s is a graph.Writer", name)
		}
		if _, ok := v.(graph.ConceptStore); ok {
			t.Errorf("the %s is a graph.ConceptStore", name)
		}
	}
}

// TestParseCaptureCheckedLeavesOutPersonalData: the chat engine's parse of
// the model's tool call checks each raw entry before normalising it.
func TestParseCaptureCheckedLeavesOutPersonalData(t *testing.T) {
	args := []byte(`{"concepts":[
		{"domain":"tax","kind":"IE29 AIBK 9311 5212 3456 78","jurisdiction":"IE","prefLabel":"Refund account"},
		{"domain":"jane.roe@example.com","kind":"VAT","jurisdiction":"IE","prefLabel":"VAT"},
		{"domain":"tax","kind":"VAT","jurisdiction":"IE","prefLabel":"Value-Added Tax","altLabels":["Cáin Bhreisluacha"]}]}`)
	concepts, skipped, rejections, err := concept.ParseCaptureChecked(args, CheckCaptured)
	if err != nil || skipped != 0 || len(concepts) != 1 || concepts[0].ID != "TAX:IE:VAT" {
		t.Fatalf("concepts %+v, skipped %d, err %v", concepts, skipped, err)
	}
	if len(rejections) != 2 {
		t.Fatalf("rejections %v, want 2", rejections)
	}
	for i, field := range []string{"kind", "domain"} {
		var rej *Rejection
		if !errors.As(rejections[i], &rej) || rej.Field != field || strings.Contains(rej.Error(), "AIBK") || strings.Contains(rej.Error(), "jane") {
			t.Errorf("rejection %d = %v, want one for %s without the value", i, rejections[i], field)
		}
	}
}
