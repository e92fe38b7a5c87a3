package eval

import (
	"fmt"
	"slices"

	"regintel/shared/graph/seeddata"
)

// Disagreement is the key and the dataset saying different things about a
// series on a date: both values and both sources. With no dataset value
// (DatasetValue nil) it is a gap: the dataset has nothing in force then.
type Disagreement struct {
	Item         string   `json:"item"`
	Series       string   `json:"series"`
	Date         string   `json:"date"`
	KeyValue     float64  `json:"keyValue"`
	KeyUnit      string   `json:"keyUnit"`
	KeyURL       string   `json:"keyUrl"`
	DatasetValue *float64 `json:"datasetValue,omitempty"`
	DatasetUnit  string   `json:"datasetUnit,omitempty"`
	DatasetURL   string   `json:"datasetUrl,omitempty"`
	// DatasetHolds says when the dataset has the key's value, if ever.
	DatasetHolds string `json:"datasetHolds,omitempty"`
}

func (d Disagreement) String() string {
	key := fmt.Sprintf("key %s (%s)", formatValue(d.KeyValue, d.KeyUnit), d.KeyURL)
	if d.DatasetValue == nil {
		return fmt.Sprintf("%s: %s on %s: %s; the dataset has no value in force", d.Item, d.Series, d.Date, key)
	}
	s := fmt.Sprintf("%s: %s on %s: %s; dataset %s (%s)", d.Item, d.Series, d.Date, key,
		formatValue(*d.DatasetValue, d.DatasetUnit), d.DatasetURL)
	if d.DatasetHolds != "" {
		s += "; the dataset has the key's value " + d.DatasetHolds
	}
	return s
}

// compareWithDataset sets an item's disagreements and gaps, after
// scoreFacts. The series compared are the item's hint, or, without one and
// when the key's value was not recalled, the series cited among the turn's
// first K (in the key's unit) that hold the key's value on some other
// date: the dataset has the right value on the wrong dates.
func compareWithDataset(r *Result, it Item, date string, ds *seeddata.Dataset, cited []string) {
	series := cited
	switch {
	case it.Series != "":
		series = []string{it.Series}
	case r.Recalled != nil && *r.Recalled:
		return // the key's value was cited as in force: nothing to compare
	}
	for _, s := range series {
		d, gap, ok := compareSeries(it, s, date, ds)
		switch {
		case !ok:
		case gap && it.Series != "":
			r.Gaps = append(r.Gaps, d)
		case !gap && (it.Series != "" || d.DatasetHolds != ""):
			r.Disagreements = append(r.Disagreements, d)
		}
	}
}

// compareSeries compares the key with the values of series s in force on
// date. ok is false when they agree (or s has nothing in the key's unit).
func compareSeries(it Item, s, date string, ds *seeddata.Dataset) (d Disagreement, gap, ok bool) {
	d = Disagreement{Item: it.ID, Series: s, Date: date, KeyValue: *it.Value, KeyUnit: it.Unit, KeyURL: it.SourceURL}
	var onDate []seeddata.DetailNode
	for _, n := range ds.Nodes {
		if n.Series != s {
			continue
		}
		v, u := factValue(n.Properties)
		if v == nil || !unitsMatch(it.Unit, u) {
			continue
		}
		if sameNumber(*v, *it.Value) && !nodeCovers(n, date) {
			d.DatasetHolds = holdsText(d.DatasetHolds, n)
		}
		if nodeCovers(n, date) {
			onDate = append(onDate, n)
		}
	}
	if len(onDate) == 0 {
		return d, true, true
	}
	if slices.ContainsFunc(onDate, func(n seeddata.DetailNode) bool {
		v, _ := factValue(n.Properties)
		return sameNumber(*v, *it.Value)
	}) {
		return d, false, false
	}
	d.DatasetValue, d.DatasetUnit = factValue(onDate[0].Properties)
	d.DatasetURL = onDate[0].SourceURL
	return d, false, true
}

// nodeCovers reports whether a dataset value is in force on date; an
// undated value is in force on every date.
func nodeCovers(n seeddata.DetailNode, date string) bool {
	return (n.ValidFrom == "" || n.ValidFrom <= date) && (n.ValidTo == "" || date <= n.ValidTo)
}

func holdsText(prev string, n seeddata.DetailNode) string {
	from, to := n.ValidFrom, n.ValidTo
	if from == "" {
		from = "undated"
	}
	if to == "" {
		to = "open"
	}
	span := from + " to " + to
	if prev != "" {
		return prev + ", " + span
	}
	return span
}

// citedSeries are the series of the turn's first K citations in the key's
// unit, in order, once each.
func citedSeries(it Item, t Turn, nodes map[string]Node) []string {
	var out []string
	for i, c := range t.Citations {
		if i >= K {
			break
		}
		if _, u := citedValue(c, nodes); !unitsMatch(it.Unit, u) {
			continue
		}
		if s := seriesOf(c, nodes); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
