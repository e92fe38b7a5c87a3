package memory

import (
	"context"
	"testing"
	"time"

	"regintel/shared/graph"
)

func TestChangesOrderCursorAndFilters(t *testing.T) {
	ctx := context.Background()
	s := New()
	t0 := time.UnixMilli(1_000_000)
	t1 := t0.Add(time.Second)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.WriteNodesAndEdges(ctx, []graph.NodeWrite{
		{Label: "Concept", ID: "TAX:IE:VAT", Props: map[string]any{"jurisdiction": "IE"}},
		{Label: "Concept", ID: "TAX:UK:VAT", Props: map[string]any{"jurisdiction": "UK"}},
	}, nil, t0))
	must(s.WriteNodesAndEdges(ctx, []graph.NodeWrite{
		{Label: "Rate", ID: "TAX:IE:VAT:RATE:standard", Props: map[string]any{"jurisdiction": "IE", "percent": 23.0}},
	}, []graph.EdgeWrite{{FromID: "TAX:IE:VAT", Type: "HAS_RATE", ToID: "TAX:IE:VAT:RATE:standard"}}, t1))

	all, err := s.Changes(ctx, graph.ChangeQuery{Limit: 100})
	must(err)
	want := []string{"n:TAX:IE:VAT", "n:TAX:UK:VAT", "e:TAX:IE:VAT|HAS_RATE|TAX:IE:VAT:RATE:standard", "n:TAX:IE:VAT:RATE:standard"}
	if len(all) != len(want) {
		t.Fatalf("%d changes, want %d", len(all), len(want))
	}
	for i, c := range all {
		if c.Cursor.Key != want[i] {
			t.Fatalf("change %d is %s, want %s", i, c.Cursor.Key, want[i])
		}
	}
	if e := all[2].Edge; e == nil || all[2].CreatedAt != graph.Timestamp(t1) || e.UpdatedAt != t1.UTC() {
		t.Fatalf("edge change %+v", all[2])
	}

	// Paging from each cursor yields the rest, in order, nothing twice.
	var paged []string
	q := graph.ChangeQuery{Limit: 1}
	for {
		page, err := s.Changes(ctx, q)
		must(err)
		if len(page) == 0 {
			break
		}
		paged = append(paged, page[0].Cursor.Key)
		q.After = page[0].Cursor
	}
	if len(paged) != len(want) {
		t.Fatalf("paged %v", paged)
	}

	// Filters: IE only drops the UK concept; Rate only keeps the rate (its
	// edge needs both ends to match); Until leaves out the later write.
	ie, _ := s.Changes(ctx, graph.ChangeQuery{Jurisdictions: []string{"IE"}, Limit: 100})
	rates, _ := s.Changes(ctx, graph.ChangeQuery{Labels: []string{"Rate"}, Limit: 100})
	early, _ := s.Changes(ctx, graph.ChangeQuery{Until: graph.Timestamp(t0), Limit: 100})
	if len(ie) != 3 || len(rates) != 1 || rates[0].Node == nil || len(early) != 2 {
		t.Fatalf("ie %d, rates %d, early %d", len(ie), len(rates), len(early))
	}

	// A rewrite moves the node to the end with created_at kept.
	t2 := t1.Add(time.Second)
	must(s.WriteNodesAndEdges(ctx, []graph.NodeWrite{{Label: "Concept", ID: "TAX:UK:VAT"}}, nil, t2))
	after, _ := s.Changes(ctx, graph.ChangeQuery{After: all[len(all)-1].Cursor, Limit: 100})
	if len(after) != 1 || after[0].Cursor.Key != "n:TAX:UK:VAT" || after[0].CreatedAt != graph.Timestamp(t0) {
		t.Fatalf("after rewrite %+v", after)
	}
}

func TestWriteIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	s := New()
	err := s.WriteNodesAndEdges(ctx, []graph.NodeWrite{{Label: "Rate", ID: "R1"}},
		[]graph.EdgeWrite{{FromID: "MISSING", Type: "HAS_RATE", ToID: "R1"}}, time.Now())
	if err == nil {
		t.Fatal("edge to a missing node accepted")
	}
	if nodes, _ := s.GetNodesByIDs(ctx, []string{"R1"}); len(nodes) != 0 {
		t.Fatal("a failed write left its nodes behind")
	}
}
