package review_test

import (
	"testing"
	"time"

	"regintel/shared/review"
)

func day(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestScheduleOfFamilies(t *testing.T) {
	for id, want := range map[string]review.Schedule{
		"TAX:IE:VAT":                             review.IrishBudget,
		"SOCIAL_WELFARE:IE:PRSI":                 review.IrishBudget,
		"PENSIONS:IE:STATE_PENSION_CONTRIBUTORY": review.IrishBudget,
		"EMPLOYMENT:IE:NATIONAL_MINIMUM_WAGE":    review.WageFloor,
		"EMPLOYMENT:UK:NATIONAL_LIVING_WAGE":     review.WageFloor,
		"TAX:UK:INCOME_TAX":                      review.UKTaxYear,
		"TAX:UK:NATIONAL_INSURANCE":              review.UKTaxYear,
		"TAX:EU:VAT_DIRECTIVE":                   review.CalendarYear,
		"not an id":                              review.CalendarYear,
	} {
		if got := review.ScheduleOf(id); got != want {
			t.Errorf("ScheduleOf(%s) = %s, want %s", id, got, want)
		}
	}
}

// A value may have changed once a review point has passed since its last
// check, however recent the check; and not before, however old.
func TestPassedAtReviewPointsNotAfterAYear(t *testing.T) {
	for _, tc := range []struct {
		name     string
		s        review.Schedule
		verified string
		ref      string
		want     bool
	}{
		{"Irish: checked the week before Budget day 2025", review.IrishBudget, "2025-09-30", "2025-10-07", true},
		{"Irish: checked on Budget day itself", review.IrishBudget, "2025-10-07", "2025-12-31", false},
		{"Irish: checked after the budget, eleven months on", review.IrishBudget, "2025-10-08", "2026-09-30", false},
		{"Irish: a year with no recorded Budget day counts 15 October", review.IrishBudget, "2026-10-01", "2026-10-15", true},
		{"Irish: before that latest day", review.IrishBudget, "2026-10-01", "2026-10-14", false},
		{"wage floor: across 1 January", review.WageFloor, "2025-12-20", "2026-01-01", true},
		{"wage floor: across 1 April", review.WageFloor, "2026-01-02", "2026-04-01", true},
		{"wage floor: between the two", review.WageFloor, "2026-01-02", "2026-03-31", false},
		{"UK: across 6 April", review.UKTaxYear, "2026-04-05", "2026-04-06", true},
		{"UK: nearly a year but no 6 April", review.UKTaxYear, "2025-04-06", "2026-04-05", false},
		{"UK: two years on", review.UKTaxYear, "2023-05-01", "2025-05-01", true},
		{"other: across 1 January", review.CalendarYear, "2025-12-31", "2026-01-01", true},
		{"other: within a calendar year", review.CalendarYear, "2026-01-01", "2026-12-31", false},
		{"a reference before the check", review.CalendarYear, "2026-06-01", "2025-06-01", false},
	} {
		if got := review.Passed(tc.s, day(t, tc.verified).Add(14*time.Hour), day(t, tc.ref).Add(10*time.Hour)); got != tc.want {
			t.Errorf("%s: Passed = %v, want %v", tc.name, got, tc.want)
		}
	}
}
