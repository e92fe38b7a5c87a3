package chat

import (
	"testing"
	"time"

	"regintel/shared/graph"
)

func TestFactValueAndUnit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props map[string]any
		value float64
		unit  string
	}{
		{"percent from JSON", map[string]any{"percent": 4.1, "band": "class_a_employee"}, 4.1, "%"},
		{"percent from Bolt", map[string]any{"percent": int64(23)}, 23, "%"},
		{"band with bounds", map[string]any{"percent": 3.0, "currency": "EUR", "period": "year", "lowerAmount": 28700.0}, 3, "%"},
		{"weekly amount", map[string]any{"amount": 299.3, "currency": "EUR", "period": "week"}, 299.3, "EUR/week"},
		{"per tonne", map[string]any{"amount": 48.5, "currency": "EUR", "unit": "tonne_co2"}, 48.5, "EUR/tonne_co2"},
		{"bare amount", map[string]any{"amount": int64(1270), "currency": "EUR"}, 1270, "EUR"},
	} {
		v, unit := factValue(tc.props)
		if v == nil || *v != tc.value || unit != tc.unit {
			t.Errorf("%s: got %v %q, want %v %q", tc.name, v, unit, tc.value, tc.unit)
		}
	}
	if v, unit := factValue(map[string]any{"deadline": "31 October"}); v != nil || unit != "" {
		t.Errorf("a fact without a number got %v %q", *v, unit)
	}
}

// A value in force on the as-of date is flagged once its last check at the
// source is more than 12 months before that date, or before today for
// today or a later date; an announced or superseded value never is.
func TestMayBeOutdated(t *testing.T) {
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	today := day("2026-11-27")
	inForce := graph.Fact{ValidFrom: "2024-01-01", Status: "in_force"}
	for _, tc := range []struct {
		name     string
		fact     graph.Fact
		verified string
		asOf     string
		want     bool
	}{
		{"checked exactly 12 months before today", inForce, "2025-11-27", "2026-11-27", false},
		{"checked a day over 12 months before today", inForce, "2025-11-26", "2026-11-27", true},
		{"a past date: checked within 12 months of it", inForce, "2024-03-01", "2025-01-15", false},
		{"a past date: checked over 12 months before it", inForce, "2023-12-31", "2025-01-15", true},
		{"a future date counts from today", inForce, "2025-12-01", "2027-06-01", false},
		{"a future date, long unchecked", inForce, "2025-06-01", "2027-06-01", true},
		{"an undated fact", graph.Fact{}, "2024-01-01", "2026-11-27", true},
		{"never checked", inForce, "", "2026-11-27", false},
		{"an announced future value", graph.Fact{ValidFrom: "2027-01-01", Status: "announced"}, "2024-01-01", "2027-06-01", false},
		{"a superseded value", graph.Fact{ValidFrom: "2020-01-01", ValidTo: "2023-12-31", Status: "superseded"}, "2021-01-01", "2023-06-01", false},
		{"not yet valid on the date", graph.Fact{ValidFrom: "2026-01-01", Status: "in_force"}, "2024-01-01", "2025-06-01", false},
		{"a neighbour", graph.Fact{ValidFrom: "2024-01-01", Status: "in_force", Neighbour: true}, "2024-01-01", "2026-11-27", false},
	} {
		f := tc.fact
		if tc.verified != "" {
			f.LastVerifiedAt = day(tc.verified).Add(15 * time.Hour)
		}
		if got := mayBeOutdated(f, day(tc.asOf), today.Add(9*time.Hour)); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
