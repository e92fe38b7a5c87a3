package graph

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// DateLayout is the stored form of valid_from and valid_to: an ISO date.
const DateLayout = time.DateOnly

// AsOfDate is the query's as-of date as an ISO date; today (UTC) when
// AsOf is zero.
func (q GroundingQuery) AsOfDate() string {
	if q.AsOf.IsZero() {
		return time.Now().UTC().Format(DateLayout)
	}
	return q.AsOf.UTC().Format(DateLayout)
}

// AsOfDates are the query's dates as ISO dates: AsOfDate, then AsOfEnd
// when it is set and differs.
func (q GroundingQuery) AsOfDates() []string {
	dates := []string{q.AsOfDate()}
	if !q.AsOfEnd.IsZero() {
		if end := q.AsOfEnd.UTC().Format(DateLayout); end != dates[0] {
			dates = append(dates, end)
		}
	}
	return dates
}

// FactWindowFor is the range of dates a store reads facts for on every
// one of dates: from the earliest one's window start to the latest one's
// window end.
func FactWindowFor(dates []string) (from, to string) {
	for i, d := range dates {
		f, t := FactWindow(d)
		if i == 0 || f < from {
			from = f
		}
		if i == 0 || t > to {
			to = t
		}
	}
	return from, to
}

// SelectFactsOn is SelectFacts for several dates: the values valid on
// each date, in the dates' order, then the neighbours not already given,
// each fact once, at most limit.
func SelectFactsOn(facts []Fact, dates []string, limit int) []Fact {
	if len(dates) == 1 {
		return SelectFacts(facts, dates[0], limit)
	}
	var valid, near []Fact
	seen := map[string]bool{}
	for _, d := range dates {
		for _, f := range SelectFacts(facts, d, limit) {
			if !f.Neighbour && !seen[f.NodeID] {
				seen[f.NodeID] = true
				valid = append(valid, f)
			}
		}
	}
	for _, d := range dates {
		for _, f := range SelectFacts(facts, d, limit) {
			if f.Neighbour && !seen[f.NodeID] {
				seen[f.NodeID] = true
				near = append(near, f)
			}
		}
	}
	out := append(valid, near...)
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// FactWindow is the range of dates a store reads facts for on asOf: a fact
// valid somewhere in it is valid on asOf or a neighbour. It reaches a year
// each side, the span within which a change brings its neighbouring value.
func FactWindow(asOf string) (from, to string) {
	d, err := time.Parse(DateLayout, asOf)
	if err != nil {
		return asOf, asOf
	}
	return d.AddDate(-1, 0, 0).Format(DateLayout), d.AddDate(1, 0, 0).Format(DateLayout)
}

// ValidOn reports whether the fact is valid on date (an ISO date). An
// undated fact (no valid_from) counts as valid from the start.
func (f Fact) ValidOn(date string) bool {
	return (f.ValidFrom == "" || f.ValidFrom <= date) && (f.ValidTo == "" || date <= f.ValidTo)
}

// DayBefore returns the ISO date before date, or "" when date is not one.
func DayBefore(date string) string {
	d, err := time.Parse(DateLayout, date)
	if err != nil {
		return ""
	}
	return d.AddDate(0, 0, -1).Format(DateLayout)
}

// SelectFacts picks, from a concept's official facts, the ones grounding
// shows for asOf: per series, the latest-starting dated value valid on
// asOf (a later start supersedes an earlier value left open, so a future
// date picks the announced value) and every undated one; and the value
// before and after a change within a year of asOf, marked Neighbour.
// Valid facts come first, newest first, then neighbours; at most limit.
func SelectFacts(facts []Fact, asOf string, limit int) []Fact {
	// Each series' facts side by side, the series in first-seen order.
	seriesOf := make(map[string]int, len(facts))
	of := make([]int, len(facts))
	var sizes []int
	for i := range facts {
		key := cmp.Or(facts[i].Series, facts[i].NodeID)
		g, ok := seriesOf[key]
		if !ok {
			g = len(sizes)
			seriesOf[key] = g
			sizes = append(sizes, 0)
		}
		of[i] = g
		sizes[g]++
	}
	starts := make([]int, len(sizes)+1)
	for g, n := range sizes {
		starts[g+1] = starts[g] + n
	}
	next := slices.Clone(starts[:len(sizes)])
	bySeries := make([]Fact, len(facts))
	for i, g := range of {
		bySeries[next[g]] = facts[i]
		next[g]++
	}
	from, to := FactWindow(asOf)
	var valid, near []Fact
	for g := range sizes {
		valid, near = selectInSeries(bySeries[starts[g]:starts[g+1]], asOf, from, to, valid, near)
	}
	valid = SortFacts(valid, limit)
	slices.SortFunc(near, func(a, b Fact) int {
		return cmp.Or(strings.Compare(a.Series, b.Series), strings.Compare(a.ValidFrom, b.ValidFrom))
	})
	out := append(valid, near...)
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// selectInSeries appends one series' facts valid on asOf to valid and its
// neighbours to near: the value before the latest change on or before
// asOf, and the first value after asOf, each when the change is within a
// year (from and to are asOf's FactWindow).
func selectInSeries(facts []Fact, asOf, from, to string, valid, near []Fact) ([]Fact, []Fact) {
	var current, after *Fact
	for i := range facts {
		f := &facts[i]
		switch {
		case f.ValidFrom == "":
			if f.ValidOn(asOf) {
				valid = append(valid, *f)
			}
		case f.ValidOn(asOf):
			if current == nil || f.ValidFrom > current.ValidFrom {
				current = f
			}
		case f.ValidFrom > asOf && f.ValidFrom <= to:
			if after == nil || f.ValidFrom < after.ValidFrom {
				after = f
			}
		}
	}
	before := previousValue(facts, current, asOf, from)
	if current != nil {
		valid = append(valid, *current)
	}
	for _, n := range []*Fact{before, after} {
		if n != nil {
			f := *n
			f.Neighbour = true
			near = append(near, f)
		}
	}
	return valid, near
}

// previousValue is the dated value in force before the latest change on or
// before asOf, when that change falls on or after from. With a current
// value the change is its start; without one, the day after the last
// value ended.
func previousValue(facts []Fact, current *Fact, asOf, from string) *Fact {
	var prev *Fact
	for i := range facts {
		f := &facts[i]
		if f.ValidFrom == "" || f == current || f.ValidFrom > asOf {
			continue
		}
		if current != nil && f.ValidFrom >= current.ValidFrom {
			continue
		}
		if current == nil && (f.ValidTo == "" || f.ValidTo < from) {
			continue
		}
		if prev == nil || f.ValidFrom > prev.ValidFrom {
			prev = f
		}
	}
	if current != nil && current.ValidFrom < from {
		return nil
	}
	return prev
}
