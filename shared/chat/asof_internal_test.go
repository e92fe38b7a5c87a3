package chat

import (
	"testing"
	"time"

	"regintel/shared/graph"
)

// A value in force on the as-of date is flagged once a review point of
// its family has passed between its last check at the source and that
// date (or today, for today or a later date); an announced or superseded
// value never is.
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
	const irishVAT, irishWage, ukTax = "TAX:IE:VAT", "EMPLOYMENT:IE:NATIONAL_MINIMUM_WAGE", "TAX:UK:INCOME_TAX"
	for _, tc := range []struct {
		name     string
		fact     graph.Fact
		concept  string
		verified string
		asOf     string
		want     bool
	}{
		{"Irish tax checked after Budget day 2025", inForce, irishVAT, "2025-10-08", "2026-11-27", true}, // 15 October 2026 has passed
		{"Irish tax checked after this autumn's budget", inForce, irishVAT, "2026-10-20", "2026-11-27", false},
		{"Irish tax checked 13 months before, no budget between", inForce, irishVAT, "2025-10-08", "2026-09-30", false},
		{"Irish tax: Budget day 2025 passed since the check", inForce, irishVAT, "2025-09-01", "2025-11-01", true},
		{"a wage floor across 1 April", inForce, irishWage, "2026-03-20", "2026-04-02", true},
		{"a wage floor between its points", inForce, irishWage, "2026-04-02", "2026-11-27", false},
		{"UK tax: checked after 6 April", inForce, ukTax, "2026-04-06", "2026-11-27", false},
		{"UK tax: checked before 6 April", inForce, ukTax, "2026-03-01", "2026-11-27", true},
		{"a future date counts from today", inForce, ukTax, "2026-04-10", "2027-06-01", false},
		{"an undated fact", graph.Fact{}, irishVAT, "2024-01-01", "2026-11-27", true},
		{"never checked", inForce, irishVAT, "", "2026-11-27", false},
		{"an announced future value", graph.Fact{ValidFrom: "2027-01-01", Status: "announced"}, irishVAT, "2024-01-01", "2027-06-01", false},
		{"a superseded value", graph.Fact{ValidFrom: "2020-01-01", ValidTo: "2023-12-31", Status: "superseded"}, irishVAT, "2021-01-01", "2023-06-01", false},
		{"not yet valid on the date", graph.Fact{ValidFrom: "2026-01-01", Status: "in_force"}, irishVAT, "2024-01-01", "2025-06-01", false},
		{"a neighbour", graph.Fact{ValidFrom: "2024-01-01", Status: "in_force", Neighbour: true}, irishVAT, "2024-01-01", "2026-11-27", false},
	} {
		f := tc.fact
		if tc.verified != "" {
			f.LastVerifiedAt = day(tc.verified).Add(15 * time.Hour)
		}
		if got := mayBeOutdated(f, tc.concept, day(tc.asOf), today.Add(9*time.Hour)); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
