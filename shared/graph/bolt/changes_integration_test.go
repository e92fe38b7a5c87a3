package bolt

import (
	"context"
	"testing"
	"time"

	"regintel/shared/graph"
)

// TestChangesOnNeo4j: the change order, paging by cursor, filters and the
// Until bound, as the memory store does them.
func TestChangesOnNeo4j(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	jur := uniqueJurisdiction()
	other := uniqueJurisdiction()
	c1, c2, rate := "TAX:"+jur+":VAT", "TAX:"+other+":VAT", "TAX:"+jur+":VAT:RATE:standard"
	t0 := time.Now().Truncate(time.Millisecond)
	t1 := t0.Add(time.Second)
	if err := s.WriteNodesAndEdges(ctx, []graph.NodeWrite{
		{Label: "Concept", ID: c1, Props: map[string]any{"jurisdiction": jur}},
		{Label: "Concept", ID: c2, Props: map[string]any{"jurisdiction": other}},
	}, nil, t0); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteNodesAndEdges(ctx, []graph.NodeWrite{{Label: "Rate", ID: rate, Props: map[string]any{"jurisdiction": jur, "percent": 23.0}}},
		[]graph.EdgeWrite{{FromID: c1, Type: "HAS_RATE", ToID: rate, Props: map[string]any{"source_urls": []string{"https://www.revenue.ie/x"}}}}, t1); err != nil {
		t.Fatal(err)
	}
	q := graph.ChangeQuery{Jurisdictions: []string{jur}, Limit: 100}
	all, err := s.Changes(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{graph.NodeChangeKey(c1), graph.EdgeChangeKey(c1, "HAS_RATE", rate), graph.NodeChangeKey(rate)}
	if len(all) != len(want) {
		t.Fatalf("%d changes, want %d", len(all), len(want))
	}
	for i, c := range all {
		if c.Cursor.Key != want[i] {
			t.Fatalf("change %d is %s, want %s", i, c.Cursor.Key, want[i])
		}
	}
	e := all[1].Edge
	if e == nil || e.UpdatedAt != t1.UTC() || all[1].CreatedAt != graph.Timestamp(t1) || len(e.Properties["source_urls"].([]string)) != 1 {
		t.Fatalf("edge change %+v", all[1])
	}
	// Paging one by one from each cursor gives the same sequence.
	q.Limit = 1
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
	rates, err := s.Changes(ctx, graph.ChangeQuery{Jurisdictions: []string{jur}, Labels: []string{"Rate"}, Limit: 100})
	if err != nil || len(rates) != 1 || rates[0].Node == nil || rates[0].Node.ID != rate {
		t.Fatalf("label filter: %+v %v", rates, err)
	}
	early, err := s.Changes(ctx, graph.ChangeQuery{Jurisdictions: []string{jur}, Until: graph.Timestamp(t0), Limit: 100})
	if err != nil || len(early) != 1 {
		t.Fatalf("until: %+v %v", early, err)
	}
}
