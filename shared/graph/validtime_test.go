package graph

import (
	"fmt"
	"slices"
	"testing"
)

func TestSelectFactsEdgesOfValidTime(t *testing.T) {
	rate := func(id, from, to string) Fact {
		return Fact{NodeID: id, Series: "S", ValidFrom: from, ValidTo: to}
	}
	history := []Fact{rate("a", "2023-01-01", "2023-12-31"), rate("b", "2024-01-01", "2024-12-31"), rate("c", "2025-01-01", "")}
	for _, tc := range []struct {
		asOf string
		want []string
	}{
		// Both ends of a period are inside it.
		{"2023-12-31", []string{"a", "~b"}},
		{"2024-01-01", []string{"b", "~a", "~c"}},
		// A change exactly a year away is still a neighbour; a day more is not.
		{"2026-01-01", []string{"c", "~b"}},
		{"2026-01-02", []string{"c"}},
		{"2022-01-01", []string{"~a"}},
		{"2021-12-31", nil},
	} {
		var got []string
		for _, f := range SelectFacts(slices.Clone(history), tc.asOf, 10) {
			got = append(got, map[bool]string{true: "~"}[f.Neighbour]+f.NodeID)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("as of %s: %v, want %v", tc.asOf, got, tc.want)
		}
	}
}

func TestSelectFactsKeepsValidOnesBeforeNeighboursWithinTheLimit(t *testing.T) {
	var facts []Fact
	for i := range 3 {
		s := fmt.Sprintf("S%d", i)
		facts = append(facts, Fact{NodeID: s + "old", Series: s, ValidFrom: "2023-01-01", ValidTo: "2023-12-31"},
			Fact{NodeID: s + "new", Series: s, ValidFrom: "2024-01-01"})
	}
	got := SelectFacts(facts, "2024-06-01", 4)
	if len(got) != 4 || got[0].Neighbour || got[1].Neighbour || got[2].Neighbour || !got[3].Neighbour {
		t.Errorf("facts %+v, want the 3 valid ones then one neighbour", got)
	}
}
