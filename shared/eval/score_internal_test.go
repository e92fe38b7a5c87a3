package eval

import (
	"strings"
	"testing"
	"time"
)

func str(v string) *string   { return &v }
func num(v float64) *float64 { return &v }

// fact is a graph node of series s from a date, with its own source.
func fact(id, series, validFrom, validTo, source string, props map[string]any) Node {
	p := map[string]any{"series": series, "source_url": source}
	if validFrom != "" {
		p["valid_from"] = validFrom
	}
	if validTo != "" {
		p["valid_to"] = validTo
	}
	for k, v := range props {
		p[k] = v
	}
	return Node{ID: id, Properties: p}
}

const prsiURL = "https://www.gov.ie/en/publication/prsi/"

// prsiTurn cites the 4.1% of October 2024 first, then the 4% before it.
func prsiTurn() (Turn, map[string]Node) {
	turn := Turn{Citations: []Citation{
		{NodeID: "PRSI:2024-10-01", Value: num(4.1), Unit: "%", ValidFrom: str("2024-10-01"), ValidTo: str("2025-09-30"), URL: prsiURL},
		{NodeID: "PRSI:2011-01-01", Value: num(4), Unit: "%", ValidFrom: str("2011-01-01"), ValidTo: str("2024-09-30"), URL: prsiURL},
	}}
	nodes := map[string]Node{
		"PRSI:2024-10-01": fact("PRSI:2024-10-01", "PRSI", "2024-10-01", "2025-09-30", prsiURL, map[string]any{"percent": 4.1}),
		"PRSI:2011-01-01": fact("PRSI:2011-01-01", "PRSI", "2011-01-01", "2024-09-30", prsiURL, map[string]any{"percent": 4.0}),
	}
	return turn, nodes
}

func TestRecallWantsTheKeysValueInForceOnTheDate(t *testing.T) {
	turn, nodes := prsiTurn()
	for _, c := range []struct {
		name     string
		it       Item
		date     string
		recalled bool
		accurate *bool
	}{
		{"the value in force, hinted", Item{Series: "PRSI", Value: num(4), Unit: "%"}, "2024-09-30", true, ptr(true)},
		{"the value in force, by value only", Item{Value: num(4), Unit: "percent"}, "2024-09-30", true, ptr(true)},
		{"the key's value cited for another date", Item{Series: "PRSI", Value: num(4), Unit: "%"}, "2025-01-01", false, ptr(false)},
		{"by value only, cited for another date", Item{Value: num(4), Unit: "%"}, "2025-01-01", false, ptr(false)},
		{"a value the turn never cites", Item{Value: num(4.2), Unit: "%"}, "2025-10-01", false, nil},
		{"the right number in another unit", Item{Value: num(4), Unit: "EUR"}, "2024-09-30", false, nil},
		{"a hinted series the dataset lacks", Item{Series: "USC", Value: num(4), Unit: "%"}, "2024-09-30", false, nil},
		{"no value of the series on the date", Item{Series: "PRSI", Value: num(4), Unit: "%"}, "2010-06-01", false, ptr(false)},
	} {
		var r Result
		scoreFacts(&r, c.it, turn, c.date, nodes)
		if r.Recalled == nil || *r.Recalled != c.recalled {
			t.Errorf("%s: recalled %v, want %v", c.name, deref(r.Recalled), c.recalled)
		}
		if (r.AsOfAccurate == nil) != (c.accurate == nil) || (c.accurate != nil && *r.AsOfAccurate != *c.accurate) {
			t.Errorf("%s: as-of accurate %v, want %v", c.name, r.AsOfAccurate, c.accurate)
		}
	}
}

func TestRecallCountsOnlyTheFirstK(t *testing.T) {
	_, nodes := prsiTurn()
	var turn Turn
	for i := 0; i < K; i++ {
		turn.Citations = append(turn.Citations, Citation{NodeID: "OTHER", Value: num(99), Unit: "%"})
	}
	turn.Citations = append(turn.Citations, Citation{NodeID: "PRSI:2011-01-01", Value: num(4), Unit: "%", ValidFrom: str("2011-01-01"), ValidTo: str("2024-09-30")})
	var r Result
	scoreFacts(&r, Item{Value: num(4), Unit: "%"}, turn, "2024-09-30", nodes)
	if r.Recalled == nil || *r.Recalled {
		t.Fatalf("a value cited %dth was recalled", K+1)
	}
}

// A series that shows another value as in force on the date fails as-of
// accuracy even when the key's value is cited too.
func TestAsOfAccuracyFailsOnAConflictingValue(t *testing.T) {
	turn := Turn{Citations: []Citation{
		{NodeID: "VAT:UNDATED", Value: num(23), Unit: "%"},
		{NodeID: "VAT:2020-09-01", Value: num(21), Unit: "%", ValidFrom: str("2020-09-01"), ValidTo: str("2021-02-28")},
	}}
	var r Result
	scoreFacts(&r, Item{Series: "VAT", Value: num(21), Unit: "%"}, turn, "2020-12-25", nil)
	if r.Recalled == nil || !*r.Recalled || r.AsOfAccurate == nil || *r.AsOfAccurate {
		t.Fatalf("recalled %v accurate %v: want recalled and inaccurate", deref(r.Recalled), r.AsOfAccurate)
	}
	if r.Given == nil || *r.Given != 23 {
		t.Errorf("given %v, want the conflicting 23", r.Given)
	}
}

// Two series sharing a value: the one cited as in force on the date is the
// question's fact, not the other that reached the value later.
func TestAsOfAccuracyByValueKeepsToTheSeriesInForce(t *testing.T) {
	turn := Turn{Citations: []Citation{
		{NodeID: "OTHER_FUELS:2022-05-01", Value: num(41), Unit: "EUR/tonne_co2", ValidFrom: str("2022-05-01"), ValidTo: str("2023-04-30")},
		{NodeID: "OTHER_FUELS:2023-05-01", Value: num(48.5), Unit: "EUR/tonne_co2", ValidFrom: str("2023-05-01"), ValidTo: str("2024-04-30")},
		{NodeID: "AUTO:2022-10-12", Value: num(48.5), Unit: "EUR/tonne_co2", ValidFrom: str("2022-10-12"), ValidTo: str("2023-10-10")},
	}}
	var r Result
	scoreFacts(&r, Item{Value: num(48.5), Unit: "EUR per tonne CO2"}, turn, "2022-11-15", nil)
	if r.Recalled == nil || !*r.Recalled || r.AsOfAccurate == nil || !*r.AsOfAccurate {
		t.Fatalf("recalled %v accurate %v: want both", deref(r.Recalled), deref(r.AsOfAccurate))
	}
	if len(r.Matched) != 1 || r.Matched[0] != "AUTO" {
		t.Errorf("matched %v, want the auto fuels series", r.Matched)
	}
}

func TestStaleValueShownAsCurrent(t *testing.T) {
	nodes := map[string]Node{
		"ENERGY:2022-05-01": fact("ENERGY:2022-05-01", "ENERGY", "2022-05-01", "2025-04-30", prsiURL, map[string]any{"percent": 9.0}),
	}
	for _, c := range []struct {
		name  string
		cited Citation
		stale bool
	}{
		{"its ending shown", Citation{NodeID: "ENERGY:2022-05-01", ValidFrom: str("2022-05-01"), ValidTo: str("2025-04-30")}, false},
		{"shown without dates", Citation{NodeID: "ENERGY:2022-05-01"}, true},
		{"shown as open", Citation{NodeID: "ENERGY:2022-05-01", ValidFrom: str("2022-05-01")}, true},
		{"marked in force after its end", Citation{NodeID: "ENERGY:2022-05-01", ValidTo: str("2025-04-30"), Status: "in_force"}, true},
	} {
		var r Result
		scoreStale(&r, Turn{Citations: []Citation{c.cited}}, "2025-06-15", nodes)
		if r.NoStale == nil || *r.NoStale == c.stale || (len(r.Stale) > 0) != c.stale {
			t.Errorf("%s: no stale %v (%v), want stale %v", c.name, deref(r.NoStale), r.Stale, c.stale)
		}
	}
	var r Result
	scoreStale(&r, Turn{Citations: []Citation{{NodeID: "ENERGY:2022-05-01"}}}, "2024-06-15", nodes)
	if !*r.NoStale {
		t.Errorf("a value in force on the date counted as stale: %v", r.Stale)
	}
}

func TestCitationValidityChecksSourceAndPage(t *testing.T) {
	page := "https://www.revenue.ie/en/vat/rates.aspx"
	partial := "https://www.revenue.ie/en/vat/partial.aspx"
	pages := Pages{
		pageKey(page):    {URL: page, ReadOn: "2026-11-28", Values: []StatedValue{{9, "%"}, {13.5, "%"}}, Complete: true},
		pageKey(partial): {URL: partial, ReadOn: "2026-11-28", Values: []StatedValue{{9, "%"}}},
	}
	nodes := map[string]Node{
		"A": fact("A", "S", "", "", page, map[string]any{"percent": 9.0}),
		"B": fact("B", "S", "", "", page, map[string]any{"percent": 23.0}),
		"C": {ID: "C", Properties: map[string]any{"percent": 9.0}},
		"D": fact("D", "S", "", "", partial, map[string]any{"percent": 23.0}),
	}
	for _, c := range []struct {
		name  string
		cited Citation
		why   string
	}{
		{"all good", Citation{NodeID: "A", Value: num(9), Unit: "%", URL: page}, ""},
		{"good, page found with another spelling", Citation{NodeID: "A", Value: num(9), Unit: "%", URL: "https://revenue.ie/en/vat/rates.aspx/"}, ""},
		{"unknown node", Citation{NodeID: "Z", URL: page}, "no such graph node"},
		{"unofficial host", Citation{NodeID: "A", URL: "https://example.com/vat"}, "not an official source"},
		{"value not the node's", Citation{NodeID: "A", Value: num(13.5), Unit: "%", URL: page}, "not the node's"},
		{"another page than the fact's", Citation{NodeID: "A", Value: num(9), Unit: "%", URL: "https://www.revenue.ie/en/vat/index.aspx"}, "the fact's own source is"},
		{"a fact without a source of its own", Citation{NodeID: "C", Value: num(9), Unit: "%", URL: page}, "no source of its own"},
		{"the page does not state it", Citation{NodeID: "B", Value: num(23), Unit: "%", URL: page}, "does not state 23%"},
		{"a partial copy proves nothing", Citation{NodeID: "D", Value: num(23), Unit: "%", URL: partial}, ""},
	} {
		var r Result
		scoreCitations(&r, Turn{Citations: []Citation{c.cited}}, nodes, pages)
		switch {
		case c.why == "" && r.ValidCitations != 1:
			t.Errorf("%s: invalid %v", c.name, r.Invalid)
		case c.why != "" && (r.ValidCitations != 0 || len(r.Invalid) != 1 || !strings.Contains(r.Invalid[0], c.why)):
			t.Errorf("%s: valid %d invalid %v, want %q", c.name, r.ValidCitations, r.Invalid, c.why)
		}
	}
}

func TestUnitsMatch(t *testing.T) {
	for _, c := range []struct {
		key, cited string
		match      bool
	}{
		{"%", "%", true},
		{"percent", "%", true},
		{"EUR", "EUR/year", true},
		{"EUR", "EUR", true},
		{"EUR per week", "EUR/week", true},
		{"EUR per tonne CO2", "EUR/tonne_co2", true},
		{"EUR", "GBP", false},
		{"EUR per week", "EUR/month", false},
		{"EUR", "EUR/week", false},
		{"%", "EUR", false},
		{"EUR/hour", "%", false},
	} {
		if got := unitsMatch(c.key, c.cited); got != c.match {
			t.Errorf("unitsMatch(%q, %q) = %v", c.key, c.cited, got)
		}
	}
	for _, bad := range []string{"", "euros", "E/week"} {
		if validUnit(bad) {
			t.Errorf("%q accepted as a unit", bad)
		}
	}
}

func TestExpectedDateReadsRelativeDays(t *testing.T) {
	today := time.Date(2026, 11, 28, 15, 0, 0, 0, time.UTC)
	for in, want := range map[string]string{"today": "2026-11-28", "today-2y": "2024-11-28", "today-3m": "2026-08-28", "today-1d": "2026-11-27", "2023-07-01": "2023-07-01"} {
		if got := (Item{ExpectedAsOf: in}).ExpectedDate(today); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

func TestSummaryCountsAFailedTurnAsAMissAndBars(t *testing.T) {
	yes := true
	rep := Report{Split: SplitHeldout, Results: []Result{
		{ID: "a", Recalled: &yes, AsOfAccurate: &yes, NoStale: &yes},
		{ID: "b", Error: "POST /chat: 500"},
	}}
	rep.Summary = summarise(rep.Results)
	s := rep.Summary
	if s.RecallAtK != (Metric{1, 2, 0.5}) || s.NoStaleAsCurrent != (Metric{1, 2, 0.5}) || s.AsOfAccuracy != (Metric{1, 1, 1}) || s.Errors != 1 {
		t.Fatalf("summary %+v", s)
	}
	below := rep.Below(HeldoutBars)
	if len(below) != 2 || !strings.Contains(below[0], "recall@8 0.500") || !strings.Contains(below[1], "no stale") {
		t.Fatalf("below %v", below)
	}
	rep.Summary.AsOfAccuracy = Metric{}
	if below := rep.Below(HeldoutBars); len(below) != 3 {
		t.Errorf("an unmeasured metric met its bar: %v", below)
	}
}

func ptr(b bool) *bool { return &b }

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
