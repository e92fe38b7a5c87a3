package calc_test

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"regintel/shared/calc"
	"regintel/shared/graph/memory"
)

// workedExample is one published example: the page, the inputs, the
// figures the page prints, and where its own arithmetic differs.
type workedExample struct {
	ID         string          `json:"id"`
	Calculator string          `json:"calculator"`
	TaxYear    string          `json:"taxYear"`
	AsOf       string          `json:"asOf"`
	Inputs     json.RawMessage `json:"inputs"`
	Source     struct {
		URL       string `json:"url"`
		Publisher string `json:"publisher"`
		What      string `json:"what"`
	} `json:"source"`
	Figures       map[string]string `json:"figures"`
	SourceDiffers []struct {
		What       string `json:"what"`
		Line       string `json:"line"`
		Published  string `json:"published"`
		Recomputed string `json:"recomputed"`
	} `json:"sourceDiffers"`
	// HandComputed marks an example worked by hand from an official rate
	// table where no stored page publishes one; its notes say so.
	HandComputed bool   `json:"handComputed"`
	Notes        string `json:"notes"`
}

func loadWorkedExamples(t testing.TB) []workedExample {
	t.Helper()
	data, err := os.ReadFile("testdata/worked_examples.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Examples []workedExample `json:"examples"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Examples
}

// seededGraph is the embedded dataset in the in-memory graph, as make dev
// serves it.
func seededGraph(t testing.TB) *memory.Store {
	t.Helper()
	g, err := memory.NewSeeded(time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func lineAmounts(res calc.Result) map[string]string {
	out := map[string]string{"total": res.Total}
	for _, l := range res.Lines {
		out[l.Name] = l.Amount
	}
	return out
}

// TestWorkedExamples runs every published example against the seeded
// dataset: every published figure must match to the cent, and every
// recorded difference must be the one we recompute.
func TestWorkedExamples(t *testing.T) {
	examples := loadWorkedExamples(t)
	if len(examples) < 40 {
		t.Errorf("%d worked examples, want at least 40", len(examples))
	}
	g := seededGraph(t)
	today := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	exact := map[string][2]int{}
	hand := map[string]int{}
	seen := map[string]bool{}
	for _, ex := range examples {
		t.Run(ex.ID, func(t *testing.T) {
			if seen[ex.ID] {
				t.Fatalf("duplicate id")
			}
			seen[ex.ID] = true
			year, ok := runWorkedExample(t, g, ex, today)
			key := ex.Calculator + " " + year
			if ex.HandComputed {
				hand[key]++
			}
			counts := exact[key]
			counts[1]++
			if ok {
				counts[0]++
			}
			exact[key] = counts
		})
	}
	keys := make([]string, 0, len(exact))
	for k := range exact {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%s: %d/%d exact (%d hand-computed from a rate table)", k, exact[k][0], exact[k][1], hand[k])
	}
}

// runWorkedExample runs one example and checks its published figures and
// recorded differences; it returns the year computed and whether all held.
func runWorkedExample(t *testing.T, g *memory.Store, ex workedExample, today time.Time) (string, bool) {
	t.Helper()
	if !strings.HasPrefix(ex.Source.URL, "http") || len(ex.Figures) == 0 {
		t.Fatalf("an example needs its source URL and at least one figure")
	}
	res, err := calc.Run(context.Background(), g, calc.Request{Calculator: ex.Calculator, TaxYear: ex.TaxYear, AsOf: ex.AsOf, Inputs: ex.Inputs}, today)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	got := lineAmounts(res)
	ok := true
	for name, want := range ex.Figures {
		if got[name] != want {
			ok = false
			t.Errorf("%s = %q, published %s (%s)", name, got[name], want, ex.Source.URL)
		}
	}
	for _, d := range ex.SourceDiffers {
		if got[d.Line] != d.Recomputed {
			ok = false
			t.Errorf("%s = %q, recorded recomputation %s (published %s)", d.Line, got[d.Line], d.Recomputed, d.Published)
		}
	}
	if len(res.Citations) == 0 {
		t.Errorf("no citations")
	}
	// Each citation is valid on the date, or, for a year's PRSI split at
	// a change, on a pay date within the tax year.
	yearEnd := res.AsOf[:4] + "-12-31"
	for _, c := range res.Citations {
		if (c.ValidFrom != nil && *c.ValidFrom > yearEnd) || (c.ValidTo != nil && *c.ValidTo < res.AsOf) {
			t.Errorf("citation %s (%v to %v) is not valid in the year of %s", c.NodeID, c.ValidFrom, c.ValidTo, res.AsOf)
		}
	}
	return res.AsOf[:4], ok
}
