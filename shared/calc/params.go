package calc

import (
	"slices"
	"strings"
	"time"

	"regintel/shared/asof"
	"regintel/shared/conversation"
	"regintel/shared/graph"
	"regintel/shared/review"
)

// Params holds the facts a calculation read, every stored value of each
// series, and answers with the one valid on Date (or on another date of the
// same read, for a period split by a change).
type Params struct {
	Date     string
	bySeries map[string][]graph.Fact // each series' values, by valid_from
	byID     map[string]graph.Fact
}

// NewParams keeps the official fact nodes among nodes, grouped by series.
func NewParams(date string, nodes []graph.Node) Params {
	p := Params{Date: date, bySeries: map[string][]graph.Fact{}, byID: map[string]graph.Fact{}}
	for _, n := range nodes {
		kind := graph.FactKind(n.Labels)
		if kind == "" || !graph.IsOfficial(n.Properties) {
			continue
		}
		f := graph.NewFact(n.ID, kind, "", n.Properties, nil)
		if f.Series == "" {
			continue
		}
		p.bySeries[f.Series] = append(p.bySeries[f.Series], f)
		p.byID[f.NodeID] = f
	}
	for _, facts := range p.bySeries {
		slices.SortFunc(facts, func(a, b graph.Fact) int { return strings.Compare(a.ValidFrom, b.ValidFrom) })
	}
	return p
}

// FactOn returns the value of series valid on date.
func (p Params) FactOn(series, date string) (graph.Fact, bool) {
	for _, f := range p.bySeries[series] {
		if f.ValidOn(date) {
			return f, true
		}
	}
	return graph.Fact{}, false
}

// factIDOn is the id of the value of series valid on date, or "".
func (p Params) factIDOn(series, date string) string {
	facts := p.bySeries[series]
	for i := range facts {
		if facts[i].ValidOn(date) {
			return facts[i].NodeID
		}
	}
	return ""
}

// Fact returns the value of series valid on p.Date.
func (p Params) Fact(series string) (graph.Fact, bool) { return p.FactOn(series, p.Date) }

// Has reports whether series has a value valid on p.Date.
func (p Params) Has(series string) bool {
	_, ok := p.Fact(series)
	return ok
}

// Require fails with a MissingFactsError naming every series of the list
// that has no value valid on date.
func (p Params) Require(date string, series ...string) error {
	var missing []string
	for _, s := range series {
		if _, ok := p.FactOn(s, date); !ok {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		return &MissingFactsError{Date: date, Series: missing}
	}
	return nil
}

// Amount is the "amount" of series valid on p.Date, exact, with the fact id.
func (p Params) Amount(series string) (Decimal, string, error) {
	return p.ValueOn(series, "amount", p.Date)
}

// Percent is the "percent" of series valid on p.Date (4.1 for 4.1%).
func (p Params) Percent(series string) (Decimal, string, error) {
	return p.ValueOn(series, "percent", p.Date)
}

// AmountOn is Amount on another date.
func (p Params) AmountOn(series, date string) (Decimal, string, error) {
	return p.ValueOn(series, "amount", date)
}

// PercentOn is Percent on another date.
func (p Params) PercentOn(series, date string) (Decimal, string, error) {
	return p.ValueOn(series, "percent", date)
}

// ValueOn is the numeric property key of series valid on date. A missing
// value or property is a MissingFactsError naming the series.
func (p Params) ValueOn(series, key, date string) (Decimal, string, error) {
	f, ok := p.FactOn(series, date)
	if !ok {
		return Decimal{}, "", &MissingFactsError{Date: date, Series: []string{series}}
	}
	d, ok := FactNumber(f, key)
	if !ok {
		return Decimal{}, f.NodeID, &MissingFactsError{Date: date, Series: []string{series + " (" + key + ")"}}
	}
	return d, f.NodeID, nil
}

// FactNumber reads a numeric property of f exactly.
func FactNumber(f graph.Fact, key string) (Decimal, bool) {
	v, ok := f.Properties[key]
	if !ok {
		return Decimal{}, false
	}
	return decimalFromStored(v)
}

// WithPrefix returns the facts valid on date of every series read whose
// name starts with prefix (the bands of one table), by series name.
func (p Params) WithPrefix(prefix, date string) []graph.Fact {
	var out []graph.Fact
	for series := range p.bySeries {
		if !strings.HasPrefix(series, prefix) {
			continue
		}
		if f, ok := p.FactOn(series, date); ok {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b graph.Fact) int { return strings.Compare(a.Series, b.Series) })
	return out
}

// ChangesBetween returns the dates in (from, to] on which a value of any of
// the series starts: the points where a period must be split.
func (p Params) ChangesBetween(from, to string, series ...string) []string {
	var out []string
	for _, s := range series {
		for _, f := range p.bySeries[s] {
			if f.ValidFrom > from && f.ValidFrom <= to && !slices.Contains(out, f.ValidFrom) {
				out = append(out, f.ValidFrom)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Citations cites every fact the lines name, in order of first use, with
// its value, validity and source, the shape chat citations have.
func (p Params) Citations(lines []Line, today time.Time) []conversation.Citation {
	var out []conversation.Citation
	seen := map[string]bool{}
	for _, l := range lines {
		for _, id := range l.FactIDs {
			f, ok := p.byID[id]
			if !ok || seen[id] {
				continue
			}
			seen[id] = true
			out = append(out, Citation(f, p.Date, today))
		}
	}
	return out
}

// Citation turns a fact into a chat citation for a calculation on date:
// the same value, unit and staleness rule (review.MayBeOutdated) as the
// citations of a chat turn.
func Citation(f graph.Fact, date string, today time.Time) conversation.Citation {
	c := conversation.Citation{NodeID: f.NodeID, Label: f.Label, Status: f.Status, Confidence: f.Confidence}
	c.Value, c.Unit = graph.ValueOf(f.Properties)
	if f.ValidFrom != "" {
		v := f.ValidFrom
		c.ValidFrom = &v
	}
	if f.ValidTo != "" {
		v := f.ValidTo
		c.ValidTo = &v
	}
	if len(f.SourceURLs) > 0 {
		c.URL = f.SourceURLs[0]
	}
	if !f.LastVerifiedAt.IsZero() {
		when := f.LastVerifiedAt
		c.LastVerifiedAt = &when
		if on, err := time.Parse(asof.DateLayout, date); err == nil {
			c.MayBeOutdated = review.MayBeOutdated(f, conceptOf(f.Series), on, today)
		}
	}
	return c
}

// conceptOf is the concept id a series belongs to (its first three parts).
func conceptOf(series string) string {
	parts := strings.SplitN(series, ":", 4)
	if len(parts) < 3 {
		return series
	}
	return strings.Join(parts[:3], ":")
}
