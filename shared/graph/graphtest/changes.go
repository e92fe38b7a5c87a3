package graphtest

import (
	"context"
	"testing"
	"time"

	"regintel/shared/graph"
)

// runChanges: the change order, paging by cursor, filters, the Until bound,
// and a rewrite moving a node to the end.
func runChanges(t *testing.T, newStore NewStore) {
	s := newStore(t)
	ctx := context.Background()
	jur, other := UniqueJurisdiction(), UniqueJurisdiction()
	c1, c2, rate := "TAX:"+jur+":VAT", "TAX:"+other+":VAT", "TAX:"+jur+":VAT:RATE:standard"
	start := time.Now().Truncate(time.Millisecond)
	written := start.Add(time.Second)
	must(t, s.WriteNodesAndEdges(ctx, []graph.NodeWrite{
		{Label: "Concept", ID: c1, Props: map[string]any{"jurisdiction": jur}},
		{Label: "Concept", ID: c2, Props: map[string]any{"jurisdiction": other}},
	}, nil, start))
	must(t, s.WriteNodesAndEdges(ctx, []graph.NodeWrite{{Label: "Rate", ID: rate, Props: map[string]any{"jurisdiction": jur, "percent": 23.0}}},
		[]graph.EdgeWrite{{FromID: c1, Type: "HAS_RATE", ToID: rate, Props: map[string]any{"source_urls": []string{"https://www.revenue.ie/x"}}}}, written))

	both := []string{jur, other}
	all, err := s.Changes(ctx, graph.ChangeQuery{Jurisdictions: both, Limit: 100})
	must(t, err)
	first, second := c1, c2
	if graph.NodeChangeKey(c2) < graph.NodeChangeKey(c1) {
		first, second = c2, c1
	}
	want := []string{graph.NodeChangeKey(first), graph.NodeChangeKey(second), graph.EdgeChangeKey(c1, "HAS_RATE", rate), graph.NodeChangeKey(rate)}
	if len(all) != len(want) {
		t.Fatalf("%d changes, want %d", len(all), len(want))
	}
	for i, c := range all {
		if c.Cursor.Key != want[i] {
			t.Fatalf("change %d is %s, want %s", i, c.Cursor.Key, want[i])
		}
	}
	e := all[2].Edge
	if e == nil || !e.UpdatedAt.Equal(written) || all[2].CreatedAt != graph.Timestamp(written) || len(e.Properties["source_urls"].([]string)) != 1 {
		t.Fatalf("edge change %+v", all[2])
	}

	// Paging one by one from each cursor gives the same sequence.
	q := graph.ChangeQuery{Jurisdictions: both, Limit: 1}
	for i := range want {
		page, err := s.Changes(ctx, q)
		if err != nil || len(page) != 1 || page[0].Cursor.Key != want[i] {
			t.Fatalf("page %d: %+v %v", i, page, err)
		}
		q.After = page[0].Cursor
	}
	if page, _ := s.Changes(ctx, q); len(page) != 0 {
		t.Fatalf("changes past the end: %+v", page)
	}

	changeFilters(t, s, jur, other, rate, start)
	changeAfterRewrite(t, s, c2, both, all[len(all)-1].Cursor, written.Add(time.Second), start)
}

// changeFilters: one jurisdiction drops the other's concept; Rate only
// keeps the rate (its edge needs both ends to match); Until leaves out the
// later write; a query needs a limit.
func changeFilters(t *testing.T, s graph.Store, jur, other, rate string, start time.Time) {
	ctx := context.Background()
	both := []string{jur, other}
	mine, _ := s.Changes(ctx, graph.ChangeQuery{Jurisdictions: []string{jur}, Limit: 100})
	rates, _ := s.Changes(ctx, graph.ChangeQuery{Jurisdictions: both, Labels: []string{"Rate"}, Limit: 100})
	early, _ := s.Changes(ctx, graph.ChangeQuery{Jurisdictions: both, Until: graph.Timestamp(start), Limit: 100})
	if len(mine) != 3 || len(rates) != 1 || rates[0].Node == nil || rates[0].Node.ID != rate || len(early) != 2 {
		t.Fatalf("one jurisdiction %d, rates %d, early %d", len(mine), len(rates), len(early))
	}
	if _, err := s.Changes(ctx, graph.ChangeQuery{}); err == nil {
		t.Error("a change query without a limit was accepted")
	}
}

// changeAfterRewrite: a rewrite moves the node to the end with created_at kept.
func changeAfterRewrite(t *testing.T, s graph.Store, id string, jurisdictions []string, last graph.ChangeCursor, at, created time.Time) {
	ctx := context.Background()
	must(t, s.WriteNodesAndEdges(ctx, []graph.NodeWrite{{Label: "Concept", ID: id}}, nil, at))
	after, _ := s.Changes(ctx, graph.ChangeQuery{Jurisdictions: jurisdictions, After: last, Limit: 100})
	if len(after) != 1 || after[0].Cursor.Key != graph.NodeChangeKey(id) || after[0].CreatedAt != graph.Timestamp(created) {
		t.Fatalf("after rewrite %+v", after)
	}
}
