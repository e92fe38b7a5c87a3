package eval

import (
	"strings"
	"testing"
	"time"

	"regintel/shared/graph/seeddata"
)

const (
	keyURL     = "https://www.irishstatutebook.ie/eli/2020/act/8/section/12/enacted/en/html"
	datasetURL = "https://www.revenue.ie/en/vat/vat-rates/index.aspx"
)

func node(series, jurisdiction, from, to string, percent float64) seeddata.DetailNode {
	return seeddata.DetailNode{Series: series, Jurisdiction: jurisdiction, ValidFrom: from, ValidTo: to, SourceURL: datasetURL,
		Properties: map[string]any{"percent": percent}}
}

func TestDisagreementNamesBothValuesAndBothSources(t *testing.T) {
	ds := &seeddata.Dataset{Nodes: []seeddata.DetailNode{
		node("VAT:STANDARD", "IE", "", "", 23),
		node("VAT:HOSPITALITY", "IE", "2020-11-01", "2023-08-31", 9),
		node("VAT:HOSPITALITY", "IE", "2023-09-01", "", 13.5),
	}}
	no, yes := false, true
	for _, c := range []struct {
		name          string
		it            Item
		date          string
		recalled      *bool
		cited         []string
		disagreements []string
		gaps          int
	}{
		{"a wrong undated value", Item{ID: "a", Series: "VAT:STANDARD", Value: num(21), Unit: "%", SourceURL: keyURL}, "2020-12-25", &no, nil,
			[]string{"key 21% (" + keyURL + "); dataset 23% (" + datasetURL + ")"}, 0},
		{"agreeing", Item{ID: "b", Series: "VAT:HOSPITALITY", Value: num(9), Unit: "%", SourceURL: keyURL}, "2021-06-01", &yes, nil, nil, 0},
		{"a series the dataset lacks", Item{ID: "c", Series: "VAT:ENERGY", Value: num(9), Unit: "%", SourceURL: keyURL}, "2025-06-15", &no, nil, nil, 1},
		{"before the series starts", Item{ID: "d", Series: "VAT:HOSPITALITY", Value: num(13.5), Unit: "%", SourceURL: keyURL}, "2020-06-01", &no, nil, nil, 1},
		{"by value: the right value on the wrong dates", Item{ID: "e", Value: num(9), Unit: "%", SourceURL: keyURL}, "2025-07-15", &no, []string{"VAT:HOSPITALITY"},
			[]string{"dataset 13.5%", "the dataset has the key's value 2020-11-01 to 2023-08-31"}, 0},
		{"by value, recalled elsewhere", Item{ID: "f", Value: num(9), Unit: "%", SourceURL: keyURL}, "2025-07-15", &yes, []string{"VAT:HOSPITALITY"}, nil, 0},
		{"by value, a series that never had it", Item{ID: "g", Value: num(21), Unit: "%", SourceURL: keyURL}, "2020-12-25", &no, []string{"VAT:STANDARD"}, nil, 0},
	} {
		r := Result{Recalled: c.recalled}
		compareWithDataset(&r, c.it, c.date, ds, c.cited)
		if len(r.Disagreements) != min(len(c.disagreements), 1) || len(r.Gaps) != c.gaps {
			t.Errorf("%s: disagreements %v gaps %v", c.name, r.Disagreements, r.Gaps)
			continue
		}
		for _, want := range c.disagreements {
			if got := r.Disagreements[0].String(); !strings.Contains(got, want) {
				t.Errorf("%s: %q lacks %q", c.name, got, want)
			}
		}
	}
}

func TestCoverageListsEveryFamilyWithItsGapsAndOfficialShare(t *testing.T) {
	corroborated := node("EMPLOYMENT:IE:NATIONAL_MINIMUM_WAGE:THRESHOLD:HOURLY_ADULT", "IE", "2024-01-01", "2024-12-31", 12.7)
	corroborated.Confidence = seeddata.ConfidenceCorroborated
	ds := seeddata.Dataset{Nodes: []seeddata.DetailNode{
		node("TAX:IE:VAT:RATE:STANDARD", "IE", "2020-09-01", "2021-02-28", 21),
		node("TAX:IE:VAT:RATE:STANDARD", "IE", "2021-03-01", "", 23),
		node("EMPLOYMENT:IE:NATIONAL_MINIMUM_WAGE:THRESHOLD:HOURLY_ADULT", "IE", "2023-01-01", "2023-12-31", 11.3),
		corroborated,
		node("TAX:UK:VAT:RATE:STANDARD", "UK", "", "", 20),
		node("TAX:IE:LPT:RATE:BAND1", "IE", "2022-01-01", "", 0.1029),
	}}
	rows := map[string]FamilyCoverage{}
	for _, r := range Coverage(ds, time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)) {
		rows[r.Family] = r
	}
	if len(rows) != len(families)+1 {
		t.Fatalf("%d rows, want every family and one other", len(rows))
	}
	vat := rows["IE VAT"]
	if vat.Values != 2 || vat.First != "2020-09-01" || vat.Last != "open" || len(vat.Gaps) != 1 ||
		vat.Gaps[0].Period != (Period{From: "2020-01-01", To: "2020-08-31"}) {
		t.Errorf("IE VAT %+v", vat)
	}
	wage := rows["IE minimum wage"]
	if wage.Last != "2024-12-31" || wage.OfficialShare() != 0.5 || len(wage.Gaps) != 2 ||
		wage.Gaps[1].Period != (Period{From: "2025-01-01", To: "2026-11-28"}) {
		t.Errorf("IE minimum wage %+v", wage)
	}
	if uk := rows["UK VAT"]; uk.First != "undated" || uk.Last != "open" || len(uk.Gaps) != 0 {
		t.Errorf("UK VAT %+v", uk)
	}
	if child := rows["IE Child Benefit"]; child.Values != 0 {
		t.Errorf("IE Child Benefit %+v", child)
	}
	if other, ok := rows["other TAX:IE:LPT"]; !ok || other.Values != 1 {
		t.Errorf("a series of no family was not listed: %v", rows)
	}
	var out strings.Builder
	if err := WriteCoverage(&out, Coverage(ds, time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC))); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"IE Child Benefit", "no values", "0.50 (1/2)", "TAX:IE:VAT:RATE:STANDARD  2020-01-01 to 2020-08-31", "values in all: 6"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("coverage table lacks %q:\n%s", want, out.String())
		}
	}
}
