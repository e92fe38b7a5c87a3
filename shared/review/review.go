// Package review says when a family of rules is due for a fresh check at
// its source: at the scheduled points where its values change, not simply
// a year after the last check. A value last checked before such a point
// that has since passed may have changed (mayBeOutdated).
//
//   - Irish tax and welfare families (VAT, income tax, USC, PRSI, CAT, CGT,
//     VRT, carbon tax, pensions, jobseeker's and child benefit) change at
//     the annual Budget: the day it was presented (asof.BudgetDay), or,
//     for a year whose day is not recorded, 15 October, the latest day a
//     euro-area budget can be presented (the draft budgetary plan is due
//     then under Regulation (EU) No 473/2013, Article 6).
//   - Wage floors (Ireland's national minimum wage, the UK's National
//     Living and Minimum Wage) change on 1 January or 1 April: both are
//     review points.
//   - UK tax, National Insurance and the UK State Pension change with the
//     UK tax year, on 6 April.
//   - Anything else (EU directives, other jurisdictions) is reviewed each
//     1 January.
package review

import (
	"strings"
	"time"

	"regintel/shared/asof"
	"regintel/shared/graph"
)

// Schedule names a family's review points.
type Schedule string

// The schedules.
const (
	IrishBudget  Schedule = "irish_budget"
	WageFloor    Schedule = "wage_floor"
	UKTaxYear    Schedule = "uk_tax_year"
	CalendarYear Schedule = "calendar_year"
)

// ScheduleOf is the schedule of a concept's family, by its id
// (DOMAIN:JURISDICTION:KIND).
func ScheduleOf(conceptID string) Schedule {
	_, rest, ok := strings.Cut(conceptID, ":")
	jurisdiction, kind, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 {
		return CalendarYear
	}
	kind, _, _ = strings.Cut(kind, ":")
	switch {
	case strings.Contains(kind, "WAGE"):
		return WageFloor
	case jurisdiction == "IE":
		return IrishBudget
	case jurisdiction == "UK" || jurisdiction == "GB":
		return UKTaxYear
	}
	return CalendarYear
}

// Passed reports whether a review point of s falls after the day of
// verified and on or before the day of ref: a value checked on verified may
// have changed by ref.
func Passed(s Schedule, verified, ref time.Time) bool {
	after, until := day(verified), day(ref)
	for year := after.Year(); year <= until.Year(); year++ {
		for _, p := range points(s, year) {
			if p.After(after) && !p.After(until) {
				return true
			}
		}
	}
	return false
}

// points are the review points of s in year.
func points(s Schedule, year int) []time.Time {
	on := func(m time.Month, d int) time.Time { return time.Date(year, m, d, 0, 0, 0, 0, time.UTC) }
	switch s {
	case IrishBudget:
		if d, ok := asof.BudgetDay(year); ok {
			return []time.Time{d}
		}
		return []time.Time{on(time.October, 15)}
	case WageFloor:
		return []time.Time{on(time.January, 1), on(time.April, 1)}
	case UKTaxYear:
		return []time.Time{on(time.April, 6)}
	}
	return []time.Time{on(time.January, 1)}
}

func day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// MayBeOutdated reports whether f is in force on asOfDate and a review
// point of its concept's family has passed between its last check at the
// source and that date, or today when the date is today or later (a check
// cannot be later than today). An announced or superseded value, or a
// neighbour, is not in force on the date; a fact never checked has no
// date to give. Chat citations and calculation citations both use it.
func MayBeOutdated(f graph.Fact, conceptID string, asOfDate, today time.Time) bool {
	return On(asOfDate, today).MayBeOutdated(f, conceptID)
}

// Check is MayBeOutdated for one as-of date and today, worked out once
// for the many facts of a turn.
type Check struct {
	asOf string    // the as-of date, ISO
	ref  time.Time // the day of the as-of date, or today when that is earlier
}

// On is the Check for asOfDate and today.
func On(asOfDate, today time.Time) Check {
	ref := day(asOfDate)
	if t := day(today); t.Before(ref) {
		ref = t
	}
	return Check{asOf: asOfDate.UTC().Format(asof.DateLayout), ref: ref}
}

// MayBeOutdated is the package's MayBeOutdated on the check's dates.
func (c Check) MayBeOutdated(f graph.Fact, conceptID string) bool {
	if f.LastVerifiedAt.IsZero() || f.Neighbour || f.Status == "announced" || f.Status == "superseded" {
		return false
	}
	if !f.ValidOn(c.asOf) {
		return false
	}
	return Passed(ScheduleOf(conceptID), f.LastVerifiedAt, c.ref)
}
