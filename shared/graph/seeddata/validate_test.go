package seeddata

import (
	"encoding/json"
	"io/fs"
	"path"
	"strings"
	"testing"
)

// mutate decodes the embedded document, lets edit change it, and returns
// what Validate says of the result.
func mutate(t *testing.T, edit func(doc map[string]any)) error {
	t.Helper()
	doc := mergedDocument(t)
	edit(doc)
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return Validate(data)
}

// mergedDocument is seed.json with every family document's records
// appended: the whole dataset as one document, as Load sees it.
func mergedDocument(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(seedJSON, &doc); err != nil {
		t.Fatal(err)
	}
	entries, err := fs.ReadDir(families, "families")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if path.Ext(e.Name()) != ".json" {
			continue
		}
		data, err := fs.ReadFile(families, "families/"+e.Name())
		if err != nil {
			t.Fatal(err)
		}
		var part map[string]any
		if err := json.Unmarshal(data, &part); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"concepts", "nodes", "edges"} {
			doc[key] = append(doc[key].([]any), part[key].([]any)...)
		}
	}
	return doc
}

// node returns the raw record of the node whose series and validFrom match.
func node(t *testing.T, doc map[string]any, series, validFrom string) map[string]any {
	t.Helper()
	for _, raw := range doc["nodes"].([]any) {
		n := raw.(map[string]any)
		if n["series"] == series && (n["validFrom"] == validFrom || (validFrom == "" && n["validFrom"] == nil)) {
			return n
		}
	}
	t.Fatalf("no node %s from %q", series, validFrom)
	return nil
}

func TestValidateRejectsBadRecords(t *testing.T) {
	const band3 = "TAX:IE:USC:RATE:BAND3"
	cases := map[string]struct {
		edit func(t *testing.T, doc map[string]any)
		want string
	}{
		"overlap": {func(t *testing.T, doc map[string]any) {
			node(t, doc, band3, "2023-01-01")["validTo"] = "2024-06-30"
		}, "overlaps"},
		"gap": {func(t *testing.T, doc map[string]any) {
			node(t, doc, band3, "2023-01-01")["validTo"] = "2023-11-30"
		}, "gap between"},
		"status against dates": {func(t *testing.T, doc map[string]any) {
			node(t, doc, band3, "2023-01-01")["status"] = "in_force"
		}, "does not fit its dates"},
		"unofficial source": {func(t *testing.T, doc map[string]any) {
			node(t, doc, band3, "2024-01-01")["sourceUrl"] = "https://www.example-accountants.ie/usc"
		}, "not on an official host"},
		"look-alike host": {func(t *testing.T, doc map[string]any) {
			node(t, doc, band3, "2024-01-01")["sourceUrl"] = "https://revenue.ie.example.com/usc"
		}, "not on an official host"},
		"validTo before validFrom": {func(t *testing.T, doc map[string]any) {
			node(t, doc, "TAX:IE:USC:RATE:BAND4", "2023-01-01")["validTo"] = "2022-12-31"
		}, "before validFrom"},
		"id not canonical": {func(t *testing.T, doc map[string]any) {
			node(t, doc, band3, "2024-01-01")["id"] = band3 + ":2024"
		}, "id is not canonical"},
		"series of another concept's label": {func(t *testing.T, doc map[string]any) {
			node(t, doc, band3, "2024-01-01")["label"] = "Threshold"
		}, "is not <concept id>:THRESHOLD"},
		"value without a source": {func(t *testing.T, doc map[string]any) {
			delete(node(t, doc, band3, "2024-01-01"), "sourceUrl")
		}, "sourceUrl"},
		"unknown value property": {func(t *testing.T, doc map[string]any) {
			node(t, doc, band3, "2024-01-01")["properties"].(map[string]any)["note"] = "x"
		}, "schema"},
		"two undated values": {func(t *testing.T, doc map[string]any) {
			delete(node(t, doc, "SOCIAL_WELFARE:IE:PRSI:RATE:CLASS_A_EMPLOYEE", "2024-10-01"), "validFrom")
		}, "UNDATED"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := mutate(t, func(doc map[string]any) { tc.edit(t, doc) })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// A change point is one record: Load closes the value before it and derives
// both statuses.
func TestOneRecordAddsAChangePoint(t *testing.T) {
	doc := mergedDocument(t)
	doc["nodes"] = append(doc["nodes"].([]any), map[string]any{
		"label": "Rate", "prefLabel": "USC rate, band 4", "jurisdiction": "IE", "series": "TAX:IE:USC:RATE:BAND4",
		"validFrom": "2027-01-01", "sourceUrl": "https://www.revenue.ie/en/jobs-and-pensions/usc/index.aspx",
		"lastVerifiedAt": "2026-11-26", "properties": map[string]any{"percent": 7.5},
	})
	data, _ := json.Marshal(doc)
	ds, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]DetailNode{}
	for _, n := range ds.Nodes {
		byID[n.ID] = n
	}
	old, added := byID["TAX:IE:USC:RATE:BAND4:2023-01-01"], byID["TAX:IE:USC:RATE:BAND4:2027-01-01"]
	if old.ValidTo != "2026-12-31" || old.Status != "in_force" {
		t.Errorf("the value replaced: validTo %q status %q", old.ValidTo, old.Status)
	}
	if added.Status != "announced" || added.ValidTo != "" {
		t.Errorf("the new value: validTo %q status %q", added.ValidTo, added.Status)
	}
	found := false
	for _, e := range ds.Edges {
		found = found || (e == Edge{From: "TAX:IE:USC", Type: "HAS_RATE", To: added.ID})
	}
	if !found {
		t.Error("no HAS_RATE edge from TAX:IE:USC to the new value")
	}
}

// The middle USC rate changed every year; each year's value is its own
// node with the dates it was valid.
func TestUSCMiddleRateByYear(t *testing.T) {
	ds, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		percent  float64
		validTo  string
		status   string
		lowerEUR float64
	}{
		"TAX:IE:USC:RATE:BAND3:2023-01-01": {4.5, "2023-12-31", "superseded", 22920},
		"TAX:IE:USC:RATE:BAND3:2024-01-01": {4, "2024-12-31", "superseded", 25760},
		"TAX:IE:USC:RATE:BAND3:2025-01-01": {3, "2025-12-31", "superseded", 27382},
		"TAX:IE:USC:RATE:BAND3:2026-01-01": {3, "", "in_force", 28700},
	}
	for _, n := range ds.Nodes {
		w, ok := want[n.ID]
		if !ok {
			continue
		}
		delete(want, n.ID)
		if n.Properties["percent"] != w.percent || n.ValidTo != w.validTo || n.Status != w.status || n.Properties["lowerAmount"] != w.lowerEUR {
			t.Errorf("%s: percent %v validTo %q status %q lower %v", n.ID, n.Properties["percent"], n.ValidTo, n.Status, n.Properties["lowerAmount"])
		}
	}
	for id := range want {
		t.Errorf("missing %s", id)
	}
}

func TestWritesCarryValidTimeAndProvenance(t *testing.T) {
	ds, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	nodes, _ := ds.Writes()
	for _, n := range nodes {
		if n.ID != "SOCIAL_WELFARE:IE:PRSI:RATE:CLASS_A_EMPLOYEE:2024-10-01" {
			continue
		}
		want := map[string]any{
			"percent": 4.1, "series": "SOCIAL_WELFARE:IE:PRSI:RATE:CLASS_A_EMPLOYEE", "valid_from": "2024-10-01",
			"valid_to": "2025-09-30", "status": "superseded", "provenance": "official",
			"last_verified_at": int64(1795651200000),
		}
		for k, v := range want {
			if n.Props[k] != v {
				t.Errorf("%s = %#v, want %#v", k, n.Props[k], v)
			}
		}
		if u, _ := n.Props["source_url"].(string); !IsOfficialURL(u) {
			t.Errorf("source_url %q", u)
		}
		return
	}
	t.Fatal("no PRSI value from 1 October 2024")
}

// A gap is allowed when the value after it says why.
func TestGapWithAReasonIsAccepted(t *testing.T) {
	err := mutate(t, func(doc map[string]any) {
		node(t, doc, "TAX:IE:USC:RATE:BAND3", "2023-01-01")["validTo"] = "2023-11-30"
		node(t, doc, "TAX:IE:USC:RATE:BAND3", "2024-01-01")["gapReason"] = "December 2023 value not yet sourced"
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCorroboratedValuesNeedTwoIndependentSources(t *testing.T) {
	const series = "TAX:IE:CGT:RATE:STANDARD"
	corroborate := func(urls ...any) func(doc map[string]any) {
		return func(doc map[string]any) {
			n := node(t, doc, series, "")
			n["confidence"] = "corroborated"
			n["sourceUrl"] = "https://example.org/cgt"
			n["corroboratingUrls"] = urls
		}
	}
	if err := mutate(t, corroborate("https://example.org/cgt", "https://another.example.net/rates")); err != nil {
		t.Fatalf("two sources on two hosts: %v", err)
	}
	refused := map[string]func(doc map[string]any){
		"one source":              corroborate("https://example.org/cgt"),
		"same host twice":         corroborate("https://example.org/cgt", "https://www.example.org/other"),
		"first is not sourceUrl":  corroborate("https://another.example.net/rates", "https://example.org/cgt"),
		"off host, not corrob.":   func(doc map[string]any) { node(t, doc, series, "")["sourceUrl"] = "https://example.org/cgt" },
		"unknown confidence word": func(doc map[string]any) { node(t, doc, series, "")["confidence"] = "likely" },
	}
	for name, edit := range refused {
		if err := mutate(t, edit); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
