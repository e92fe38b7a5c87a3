package concept

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestCanonicalID(t *testing.T) {
	cases := []struct{ domain, jur, kind, want string }{
		{"TAX", "IE", "VAT", "TAX:IE:VAT"},
		{" tax ", "ie", "vat", "TAX:IE:VAT"},
		{"social welfare", "IE", "Jobseeker's  Benefit", "SOCIAL_WELFARE:IE:JOBSEEKER_S_BENEFIT"},
		{"", "", "VRT", "GENERIC:GLOBAL:VRT"},
		{"vehicle-reg", "EU/IE", "import__duty", "VEHICLE-REG:EU_IE:IMPORT_DUTY"},
		{"TAX", "  ", "%%%", "TAX:GLOBAL:GENERIC"},
	}
	for _, c := range cases {
		if got := CanonicalID(c.domain, c.jur, c.kind); got != c.want {
			t.Errorf("CanonicalID(%q,%q,%q) = %q, want %q", c.domain, c.jur, c.kind, got, c.want)
		}
	}
}

func TestNormalizeDedupesLabelsAndURLs(t *testing.T) {
	got := Normalize(Concept{Domain: "tax", Jurisdiction: "ie", Kind: "vat", PrefLabel: "  Value-Added   Tax ",
		AltLabels:  []string{"VAT", "vat", " ", "value-added tax", "sales tax in Ireland"},
		SourceURLs: []string{"https://www.revenue.ie/vat", "https://www.revenue.ie/vat", ""}})
	want := Concept{ID: "TAX:IE:VAT", Domain: "TAX", Jurisdiction: "IE", Kind: "VAT", PrefLabel: "Value-Added Tax",
		AltLabels: []string{"VAT", "sales tax in Ireland"}, SourceURLs: []string{"https://www.revenue.ie/vat"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Normalize = %+v\nwant %+v", got, want)
	}
}

func TestParseCapture(t *testing.T) {
	args := json.RawMessage(`{"concepts":[
		{"domain":"TAX","kind":"VAT","jurisdiction":"IE","prefLabel":"Value-Added Tax","altLabels":["VAT"]},
		{"domain":"TAX","kind":"vat","jurisdiction":"ie","prefLabel":"VAT again"},
		{"domain":"TAX","kind":"VRT","prefLabel":"Vehicle Registration Tax"},
		{"domain":"VEHICLE_REG","kind":"VRT","jurisdiction":"IE","prefLabel":"Vehicle Registration Tax"}]}`)
	got, skipped, err := ParseCapture(args)
	if err != nil {
		t.Fatal(err)
	}
	if skipped != 1 || len(got) != 2 || got[0].ID != "TAX:IE:VAT" || got[1].ID != "VEHICLE_REG:IE:VRT" {
		t.Fatalf("got %+v skipped %d", got, skipped)
	}
	for _, bad := range []string{`{"concepts":`, `[]`, `{"other":1}`, `{"concepts":"VAT"}`} {
		if _, _, err := ParseCapture(json.RawMessage(bad)); err == nil {
			t.Errorf("ParseCapture(%s) accepted malformed arguments", bad)
		}
	}
}

// TestParseCaptureIsStrict: a field name matched only when case is ignored,
// a key given twice (the last would win) or a control character makes the
// whole call invalid, so nothing the guard did not see is ever used.
func TestParseCaptureIsStrict(t *testing.T) {
	for name, args := range map[string]string{
		"case-folded kind": `{"concepts":[{"domain":"TAX","kind":"VAT","jurisdiction":"IE","prefLabel":"VAT","KIND":"IBAN"}]}`,
		"case-folded list": `{"Concepts":[{"domain":"TAX","kind":"VAT","jurisdiction":"IE","prefLabel":"VAT"}]}`,
		"duplicate kind":   `{"concepts":[{"domain":"TAX","kind":"VAT","kind":"VRT","jurisdiction":"IE","prefLabel":"VAT"}]}`,
		"duplicate list":   `{"concepts":[],"concepts":[{"domain":"TAX","kind":"VAT","jurisdiction":"IE","prefLabel":"VAT"}]}`,
		"nul in a label":   `{"concepts":[{"domain":"TAX","kind":"VAT","jurisdiction":"IE","prefLabel":"VAT","altLabels":["a\u0000b"]}]}`,
	} {
		if got, _, err := ParseCapture(json.RawMessage(args)); err == nil {
			t.Errorf("%s: parsed %+v", name, got)
		}
	}
}

// FuzzCaptureArgs: capture_concepts arguments never panic the parser, and
// what it returns is normalised: each id is the canonical id of its parts,
// ids are distinct, at most MaxConceptsPerTurn.
func FuzzCaptureArgs(f *testing.F) {
	f.Add([]byte(`{"concepts":[{"domain":"TAX","kind":"VAT","jurisdiction":"IE","prefLabel":"Value-Added Tax","altLabels":["VAT"],"sourceUrls":["https://www.revenue.ie/"]}]}`))
	f.Add([]byte(`{"concepts":[{"domain":"tax","kind":"vat","jurisdiction":"ie","prefLabel":"x","kind":"y"}]}`))
	f.Add([]byte(`{"concepts":[{"domain":"","kind":" ","jurisdiction":null,"prefLabel":"p"}],"CONCEPTS":[]}`))
	f.Fuzz(func(t *testing.T, args []byte) {
		concepts, _, err := ParseCapture(json.RawMessage(args))
		if err != nil {
			return
		}
		if len(concepts) > MaxConceptsPerTurn {
			t.Fatalf("%d concepts", len(concepts))
		}
		seen := map[string]bool{}
		for _, c := range concepts {
			if c.ID != CanonicalID(c.Domain, c.Jurisdiction, c.Kind) || seen[c.ID] || c.PrefLabel == "" {
				t.Fatalf("concept %+v from %q", c, args)
			}
			seen[c.ID] = true
		}
	})
}
