package graphtest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"regintel/shared/graph"
	"regintel/shared/graph/write"
)

func runValidTime(t *testing.T, newStore NewStore) {
	runAll(t, newStore, []subtest{
		{"AsOfPicksTheValueValidThenWithNeighbours", validTimeAsOf},
		{"FutureDatePicksTheAnnouncedValue", validTimeAnnounced},
		{"CapturedFactsNeverGround", validTimeProvenance},
		{"NewValueClosesTheOldAndKeepsHistory", validTimeClosesOnChange},
		{"UndatedValueIsSeenNotDated", validTimeUndated},
		{"SeriesPrefixReadsATableInOneCall", validTimeSeriesPrefix},
	})
}

// validTimeSeriesPrefix: a name ending in "*" reads every series with that
// prefix (the seed's VRT CO2 bands), beside exact names, and no other.
func validTimeSeriesPrefix(t *testing.T, newStore NewStore) {
	s := newStore(t)
	const prefix, exact = "TAX:IE:VRT:RATE:CO2_", "TAX:IE:CAT:RATE:STANDARD"
	nodes, err := s.FactSeries(context.Background(), []string{prefix + "*", exact})
	must(t, err)
	bands, others := map[string]bool{}, 0
	for _, n := range nodes {
		series, _ := n.Properties["series"].(string)
		switch {
		case strings.HasPrefix(series, prefix):
			bands[series] = true
		case series == exact:
			others++
		default:
			t.Errorf("%s (series %q) matches neither name", n.ID, series)
		}
	}
	if len(bands) < 10 || others == 0 {
		t.Errorf("read %d CO2 band series and %d values of %s, want the seed's table and the exact series", len(bands), others, exact)
	}
	none, err := s.FactSeries(context.Background(), []string{"TAX:IE:VRT:RATE:NO_SUCH_TABLE_*"})
	must(t, err)
	if len(none) != 0 {
		t.Errorf("a prefix no series has read %d nodes", len(none))
	}
}

// date parses an ISO date for a test.
func date(t testing.TB, s string) time.Time {
	t.Helper()
	d, err := time.Parse(graph.DateLayout, s)
	must(t, err)
	return d
}

// dated is an official rate of series, valid from..to ("" while in force).
func dated(series, from, to string, percent float64) graph.NodeWrite {
	props := map[string]any{"series": series, "valid_from": from, "percent": percent, "status": "in_force",
		"source_url": "https://www.revenue.ie/en/usc", graph.ProvenanceKey: string(graph.ProvenanceOfficial)}
	if to != "" {
		props["valid_to"], props["status"] = to, "superseded"
	}
	return graph.NodeWrite{Label: "Rate", ID: series + ":" + from, Props: props}
}

// writeFacts links every node to concept by HAS_RATE.
func writeFacts(t testing.TB, s graph.Store, conceptID string, nodes ...graph.NodeWrite) {
	t.Helper()
	edges := make([]graph.EdgeWrite, len(nodes))
	for i, n := range nodes {
		edges[i] = graph.EdgeWrite{FromID: conceptID, Type: "HAS_RATE", ToID: n.ID}
	}
	must(t, s.WriteNodesAndEdges(context.Background(), nodes, edges, t0))
}

// factsOn grounds the active concept on asOf ("" for no as-of date) and
// renders its facts as "percent@validFrom", neighbours with a "~".
func factsOn(t testing.TB, s graph.Store, conceptID, asOf string) []string {
	t.Helper()
	q := graph.GroundingQuery{ActiveIDs: []string{conceptID}, MaxFactsPerConcept: 20}
	if asOf != "" {
		q.AsOf = date(t, asOf)
	}
	got := ground(t, s, q)
	if len(got) != 1 {
		t.Fatalf("grounded %v", ids(got))
	}
	var out []string
	for _, f := range got[0].Facts {
		mark := ""
		if f.Neighbour {
			mark = "~"
		}
		out = append(out, fmt.Sprintf("%s%v@%s", mark, f.Properties["percent"], f.ValidFrom))
	}
	return out
}

func validTimeAsOf(t *testing.T, newStore NewStore) {
	s := newStore(t)
	c := Concept(UniqueJurisdiction(), "USC", "Universal Social Charge")
	upsert(t, s, t0, c)
	series := c.ID + ":RATE:BAND3"
	writeFacts(t, s, c.ID,
		dated(series, "2023-01-01", "2023-12-31", 4.5),
		dated(series, "2024-01-01", "2024-12-31", 4),
		dated(series, "2025-01-01", "", 3),
		// Undated (no series, no valid_from): valid on every date.
		graph.MarkOfficial([]graph.NodeWrite{{Label: "Rate", ID: c.ID + ":RATE:SURCHARGE", Props: map[string]any{"percent": 3.0}}})[0],
	)
	for _, tc := range []struct {
		asOf string
		want []string
	}{
		{"2023-06-15", []string{"3@", "4.5@2023-01-01", "~4@2024-01-01"}},
		{"2024-06-15", []string{"3@", "4@2024-01-01", "~4.5@2023-01-01", "~3@2025-01-01"}},
		{"2025-06-15", []string{"3@", "3@2025-01-01", "~4@2024-01-01"}},
		// The last change is over a year before: no neighbour.
		{"2026-03-01", []string{"3@", "3@2025-01-01"}},
		// Before the series starts only the undated fact holds.
		{"2020-01-01", []string{"3@"}},
		// No date: today, when the 2025 value is still in force.
		{"", []string{"3@", "3@2025-01-01"}},
	} {
		got := factsOn(t, s, c.ID, tc.asOf)
		slices.Sort(got[:countValid(got)])
		if !slices.Equal(got, tc.want) {
			t.Errorf("as of %q: facts %v, want %v", tc.asOf, got, tc.want)
		}
	}
}

// countValid counts the facts before the first neighbour.
func countValid(facts []string) int {
	for i, f := range facts {
		if f[0] == '~' {
			return i
		}
	}
	return len(facts)
}

func validTimeAnnounced(t *testing.T, newStore NewStore) {
	s := newStore(t)
	c := Concept(UniqueJurisdiction(), "PRSI", "Pay Related Social Insurance")
	upsert(t, s, t0, c)
	series := c.ID + ":RATE:CLASS_A"
	announced := dated(series, "2027-10-01", "", 4.35)
	announced.Props["status"] = "announced"
	// The in-force value is left open, as a dataset may leave it before
	// the change is enacted: the later start still wins on later dates.
	writeFacts(t, s, c.ID, dated(series, "2025-10-01", "", 4.2), announced)
	if got := factsOn(t, s, c.ID, "2028-01-15"); !slices.Equal(got, []string{"4.35@2027-10-01", "~4.2@2025-10-01"}) {
		t.Errorf("as of 2028-01-15: %v, want the announced 4.35 with 4.2 before it", got)
	}
	if got := factsOn(t, s, c.ID, "2027-03-01"); !slices.Equal(got, []string{"4.2@2025-10-01", "~4.35@2027-10-01"}) {
		t.Errorf("as of 2027-03-01: %v, want 4.2 with the announced 4.35 next", got)
	}
	q := ground(t, s, graph.GroundingQuery{ActiveIDs: []string{c.ID}, AsOf: date(t, "2027-03-01")})
	if next := q[0].Facts[1]; next.Status != "announced" || next.Series != series || next.ValidTo != "" || !next.Neighbour {
		t.Errorf("announced neighbour %+v", next)
	}
}

func validTimeProvenance(t *testing.T, newStore NewStore) {
	s := newStore(t)
	c := Concept(UniqueJurisdiction(), "CGT", "Capital Gains Tax")
	upsert(t, s, t0, c)
	series := c.ID + ":RATE:MAIN"
	captured := dated(series, "2024-01-01", "", 99)
	captured.ID = series + ":CAPTURED"
	captured.Props[graph.ProvenanceKey] = string(graph.ProvenanceCapture)
	unmarked := dated(c.ID+":RATE:OTHER", "2024-01-01", "", 98)
	delete(unmarked.Props, graph.ProvenanceKey)
	writeFacts(t, s, c.ID, dated(series, "2020-01-01", "", 33), captured, unmarked)
	if got := factsOn(t, s, c.ID, "2025-01-01"); !slices.Equal(got, []string{"33@2020-01-01"}) {
		t.Errorf("facts %v, want only the official 33%%", got)
	}
}

func validTimeClosesOnChange(t *testing.T, newStore NewStore) {
	s := newStore(t)
	c := Concept(UniqueJurisdiction(), "PRSI", "Pay Related Social Insurance")
	upsert(t, s, t0, c)
	series := c.ID + ":RATE:CLASS_A"
	today := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	svc := write.NewService(s, write.WithClock(func() time.Time { return today }))
	value := func(from string, percent float64) write.FactValue {
		props := map[string]any{"series": series, "percent": percent, "source_url": "https://www.gov.ie/prsi",
			graph.ProvenanceKey: string(graph.ProvenanceOfficial)}
		if from != "" {
			props["valid_from"] = from
		}
		return write.FactValue{ConceptID: c.ID, Relationship: "HAS_RATE", Node: graph.NodeWrite{Label: "Rate", Props: props}}
	}
	record := func(vs ...write.FactValue) {
		t.Helper()
		res, err := svc.RecordFactValues(context.Background(), vs)
		if err != nil || len(res.Rejected) > 0 {
			t.Fatalf("RecordFactValues: %v, rejected %+v", err, res.Rejected)
		}
	}
	record(value("2024-10-01", 4.1))
	record(value("2025-10-01", 4.2))
	record(value("2026-10-01", 4.35))
	history := seriesByID(t, s, series)
	want := map[string][3]string{ // valid_from, valid_to, status
		series + ":2024-10-01": {"2024-10-01", "2025-09-30", "superseded"},
		series + ":2025-10-01": {"2025-10-01", "2026-09-30", "in_force"},
		series + ":2026-10-01": {"2026-10-01", "", "announced"},
	}
	if len(history) != len(want) {
		t.Fatalf("series holds %v, want 3 nodes", history)
	}
	for id, w := range want {
		if got := history[id]; got != w {
			t.Errorf("%s: (from, to, status) = %v, want %v", id, got, w)
		}
	}
	// A value recorded out of order sits between its neighbours.
	record(value("2023-01-01", 4))
	if got := seriesByID(t, s, series)[series+":2023-01-01"]; got != [3]string{"2023-01-01", "2024-09-30", "superseded"} {
		t.Errorf("back-filled value = %v, want it to end where 2024-10-01 starts", got)
	}
	for asOf, want := range map[string]string{"2023-06-01": "4@2023-01-01", "2025-01-01": "4.1@2024-10-01", "2025-11-01": "4.2@2025-10-01", "2026-11-01": "4.35@2026-10-01"} {
		if got := factsOn(t, s, c.ID, asOf); len(got) == 0 || got[0] != want {
			t.Errorf("as of %s: %v, want %s first", asOf, got, want)
		}
	}
}

// seriesByID reads a series back as id -> (valid_from, valid_to, status).
func seriesByID(t testing.TB, s graph.Store, series string) map[string][3]string {
	t.Helper()
	nodes, err := s.FactSeries(context.Background(), []string{series})
	must(t, err)
	out := map[string][3]string{}
	for _, n := range nodes {
		str := func(k string) string { v, _ := n.Properties[k].(string); return v }
		out[n.ID] = [3]string{str("valid_from"), str("valid_to"), str("status")}
	}
	return out
}

func validTimeUndated(t *testing.T, newStore NewStore) {
	s := newStore(t)
	c := Concept(UniqueJurisdiction(), "VAT", "Value-Added Tax")
	upsert(t, s, t0, c)
	series := c.ID + ":RATE:REDUCED"
	seen := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	clock := seen
	svc := write.NewService(s, write.WithClock(func() time.Time { return clock }))
	record := func(percent float64) {
		t.Helper()
		_, err := svc.RecordFactValues(context.Background(), []write.FactValue{{ConceptID: c.ID, Relationship: "HAS_RATE", Node: graph.NodeWrite{
			Label: "Rate", Props: map[string]any{"series": series, "percent": percent, graph.ProvenanceKey: string(graph.ProvenanceOfficial)},
		}}})
		must(t, err)
	}
	record(13.5)
	clock = seen.AddDate(0, 0, 7)
	record(13.5) // seen again: re-verified, not a second node
	nodes, err := s.FactSeries(context.Background(), []string{series})
	must(t, err)
	if len(nodes) != 1 || nodes[0].ID != series+":UNDATED" || nodes[0].Properties["valid_from"] != nil ||
		nodes[0].Properties["last_verified_at"] != graph.Timestamp(clock) {
		t.Fatalf("series after the same undated value twice: %+v", nodes)
	}
	record(9) // a different value with no stated date: added, nothing closed
	nodes, err = s.FactSeries(context.Background(), []string{series})
	must(t, err)
	if len(nodes) != 2 || nodes[0].Properties["valid_to"] != nil || nodes[1].Properties["valid_to"] != nil {
		t.Fatalf("series after a second undated value: %+v", nodes)
	}
	if got := factsOn(t, s, c.ID, "2026-03-10"); len(got) != 2 {
		t.Errorf("undated values on 2026-03-10: %v, want both", got)
	}
	// Seen undated, a value the series holds in force today is that
	// value re-verified, not a second node.
	_, err = svc.RecordFactValues(context.Background(), []write.FactValue{{ConceptID: c.ID, Relationship: "HAS_RATE", Node: graph.NodeWrite{
		Label: "Rate", Props: map[string]any{"series": series, "valid_from": "2026-01-01", "percent": 23.0, graph.ProvenanceKey: string(graph.ProvenanceOfficial)},
	}}})
	must(t, err)
	record(23)
	if history := seriesByID(t, s, series); len(history) != 3 || history[series+":2026-01-01"] != [3]string{"2026-01-01", "", "in_force"} {
		t.Errorf("series after the in-force value seen undated: %v", history)
	}
}
