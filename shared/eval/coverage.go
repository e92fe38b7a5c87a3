package eval

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"regintel/shared/graph/seeddata"
)

// CoverageFrom is the first day the dataset is meant to cover.
const CoverageFrom = "2020-01-01"

// family groups series by jurisdiction and words of their ids: the
// families of rules people ask about.
type family struct {
	name         string
	jurisdiction string
	words        []string
}

// families are listed in reporting order; a series goes to the first that
// matches it, else to "other <concept>".
var families = []family{
	{"IE VAT", "IE", []string{":VAT:"}},
	{"IE income tax", "IE", []string{":INCOME_TAX:"}},
	{"IE USC", "IE", []string{":USC:"}},
	{"IE PRSI", "IE", []string{":PRSI:"}},
	{"IE carbon tax", "IE", []string{":CARBON_TAX:"}},
	{"IE minimum wage", "IE", []string{"MINIMUM_WAGE"}},
	{"IE CAT", "IE", []string{":CAT:"}},
	{"IE CGT", "IE", []string{":CGT:"}},
	{"IE stamp duty", "IE", []string{"STAMP_DUTY"}},
	{"IE VRT", "IE", []string{":VRT:"}},
	{"IE State Pension", "IE", []string{"STATE_PENSION"}},
	{"IE Jobseeker's", "IE", []string{"JOBSEEKER"}},
	{"IE Child Benefit", "IE", []string{"CHILD_BENEFIT"}},
	{"UK income tax", "UK", []string{":INCOME_TAX:", ":SCOTTISH_INCOME_TAX:"}},
	{"UK National Insurance", "UK", []string{"NATIONAL_INSURANCE"}},
	{"UK VAT", "UK", []string{":VAT:"}},
	{"UK minimum wage", "UK", []string{"LIVING_WAGE", "MINIMUM_WAGE"}},
	{"UK State Pension", "UK", []string{"STATE_PENSION"}},
	{"EU VAT", "EU", []string{":VAT:", ":VAT_DIRECTIVE:"}},
}

// familyOf names the family of a series of jurisdiction j.
func familyOf(series, j string) string {
	for _, f := range families {
		if f.jurisdiction != j {
			continue
		}
		for _, w := range f.words {
			if strings.Contains(series, w) {
				return f.name
			}
		}
	}
	parts := strings.Split(series, ":")
	return "other " + strings.Join(parts[:min(3, len(parts))], ":")
}

// Period is a span of days, both ends included.
type Period struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// SeriesGap is a period since CoverageFrom with no value of a series in
// force.
type SeriesGap struct {
	Series string `json:"series"`
	Period
}

// FamilyCoverage is how far the dataset covers one family.
type FamilyCoverage struct {
	Family string `json:"family"`
	Series int    `json:"series"`
	Values int    `json:"values"`
	// First is the earliest start of a value ("undated" when a value has
	// none); Last the latest end ("open" while a value is in force).
	First    string      `json:"first"`
	Last     string      `json:"last"`
	Gaps     []SeriesGap `json:"gaps"`
	Official int         `json:"official"`
}

// OfficialShare is the share of the family's values whose confidence is
// official (not corroborated).
func (f FamilyCoverage) OfficialShare() float64 {
	if f.Values == 0 {
		return 0
	}
	return float64(f.Official) / float64(f.Values)
}

// Coverage measures the dataset per family, every family listed whether
// the dataset has values of it or not, as of today.
func Coverage(ds seeddata.Dataset, today time.Time) []FamilyCoverage {
	end := today.UTC().Format(time.DateOnly)
	bySeries := map[string][]seeddata.DetailNode{}
	familyOfSeries := map[string]string{}
	for _, n := range ds.Nodes {
		if n.Series == "" {
			continue
		}
		bySeries[n.Series] = append(bySeries[n.Series], n)
		familyOfSeries[n.Series] = familyOf(n.Series, n.Jurisdiction)
	}
	rows := map[string]*FamilyCoverage{}
	var order []string
	for _, f := range families {
		rows[f.name] = &FamilyCoverage{Family: f.name}
		order = append(order, f.name)
	}
	seriesNames := make([]string, 0, len(bySeries))
	for s := range bySeries {
		seriesNames = append(seriesNames, s)
	}
	slices.Sort(seriesNames)
	for _, s := range seriesNames {
		name := familyOfSeries[s]
		row, ok := rows[name]
		if !ok {
			row = &FamilyCoverage{Family: name}
			rows[name] = row
			order = append(order, name)
		}
		nodes := bySeries[s]
		row.Series++
		row.Values += len(nodes)
		for _, n := range nodes {
			if n.Confidence == "" || n.Confidence == seeddata.ConfidenceOfficial {
				row.Official++
			}
			row.First = earlier(row.First, orText(n.ValidFrom, "undated"))
			row.Last = later(row.Last, orText(n.ValidTo, "open"))
		}
		for _, p := range seriesGaps(nodes, CoverageFrom, end) {
			row.Gaps = append(row.Gaps, SeriesGap{Series: s, Period: p})
		}
	}
	out := make([]FamilyCoverage, 0, len(order))
	for _, name := range order {
		out = append(out, *rows[name])
	}
	return out
}

func orText(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// earlier keeps the earliest first date; "undated" is earlier than any.
func earlier(a, b string) string {
	switch {
	case a == "":
		return b
	case a == "undated" || b == "undated":
		return "undated"
	case b < a:
		return b
	}
	return a
}

// later keeps the latest last date; "open" is later than any.
func later(a, b string) string {
	switch {
	case a == "":
		return b
	case a == "open" || b == "open":
		return "open"
	case b > a:
		return b
	}
	return a
}

// seriesGaps are the periods within [from, to] when no value of the
// series is in force.
func seriesGaps(nodes []seeddata.DetailNode, from, to string) []Period {
	sorted := slices.Clone(nodes)
	slices.SortFunc(sorted, func(a, b seeddata.DetailNode) int { return strings.Compare(a.ValidFrom, b.ValidFrom) })
	var gaps []Period
	cursor := from // the first day not yet known to be covered
	for _, n := range sorted {
		if cursor > to {
			break
		}
		if start := n.ValidFrom; start != "" && start > cursor {
			gaps = append(gaps, Period{From: cursor, To: minDate(dayBefore(start), to)})
		}
		if n.ValidTo == "" {
			return gaps
		}
		if next := dayAfter(n.ValidTo); next > cursor {
			cursor = next
		}
	}
	if cursor <= to {
		gaps = append(gaps, Period{From: cursor, To: to})
	}
	return gaps
}

func shiftDay(d string, days int) string {
	t, err := time.Parse(time.DateOnly, d)
	if err != nil {
		return d
	}
	return t.AddDate(0, 0, days).Format(time.DateOnly)
}

func dayBefore(d string) string { return shiftDay(d, -1) }
func dayAfter(d string) string  { return shiftDay(d, 1) }

func minDate(a, b string) string {
	if a < b {
		return a
	}
	return b
}

// WriteCoverage prints one row per family, then each gap.
func WriteCoverage(w io.Writer, rows []FamilyCoverage) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "family\tseries\tvalues\tfirst\tlast\tgaps since %s\tofficial\n", CoverageFrom)
	total := 0
	for _, r := range rows {
		total += r.Values
		if r.Values == 0 {
			fmt.Fprintf(tw, "%s\t0\t0\t-\t-\tno values\t-\n", r.Family)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%d\t%.2f (%d/%d)\n", r.Family, r.Series, r.Values, r.First, r.Last,
			len(r.Gaps), r.OfficialShare(), r.Official, r.Values)
	}
	fmt.Fprintf(tw, "\nvalues in all: %d\n", total)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\ngaps (no value in force):")
	for _, r := range rows {
		for _, g := range r.Gaps {
			fmt.Fprintf(w, "  %s  %s  %s to %s\n", r.Family, g.Series, g.From, g.To)
		}
	}
	return nil
}
