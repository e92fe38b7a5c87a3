package eval

import (
	"math"
	"regexp"
	"slices"
	"strconv"

	"regintel/shared/graph/seeddata"
)

// K is how many of a turn's citations, in the order given to the model,
// count for recall.
const K = 8

// Result is one question's scores. A score that does not apply is nil: no
// as-of accuracy when the turn cited nothing of the question's fact, no
// detection when the request named the date, no number accuracy without a
// real model.
type Result struct {
	ID           string   `json:"id"`
	Series       string   `json:"series,omitempty"`
	ExpectedAsOf string   `json:"expectedAsOf"`
	Want         *float64 `json:"want,omitempty"`
	Unit         string   `json:"unit,omitempty"`
	AsOf         string   `json:"asOf"`
	AsOfSource   string   `json:"asOfSource"`
	// Recalled: one of the first K citations gives the key's value, in its
	// unit, as in force on the expected date (of the hinted series, when
	// the item names one).
	Recalled *bool `json:"recalled,omitempty"`
	// Matched names the series whose citation gave the key's value on the
	// date, to audit a match by value alone.
	Matched []string `json:"matched,omitempty"`
	// AsOfAccurate: the turn cited the question's fact, and the value it
	// shows as in force on the expected date is the key's.
	AsOfAccurate *bool `json:"asOfAccurate,omitempty"`
	Detected     *bool `json:"asOfDetected,omitempty"`
	// NoStale: no citation shows as in force on the expected date a value
	// whose own valid time ended before it; Stale lists those that do.
	NoStale *bool    `json:"noStaleAsCurrent,omitempty"`
	Stale   []string `json:"staleAsCurrent,omitempty"`
	// Citations counts the turn's citations, ValidCitations those that pass
	// every check of scoreCitations; Invalid says why the others do not.
	Citations       int      `json:"citations"`
	ValidCitations  int      `json:"validCitations"`
	Invalid         []string `json:"invalid,omitempty"`
	NumbersAccurate *bool    `json:"numbersAccurate,omitempty"`
	// Given is the value the turn shows for the question's fact on the
	// expected date (nil when none).
	Given *float64 `json:"given,omitempty"`
	// Disagreements are where the dataset's value on the expected date
	// differs from the key's; Gaps where the dataset has none.
	Disagreements []Disagreement `json:"disagreements,omitempty"`
	Gaps          []Disagreement `json:"gaps,omitempty"`
	Answer        string         `json:"answer,omitempty"`
	Error         string         `json:"error,omitempty"`
}

// validOn reports whether a citation's valid time covers date; an undated
// fact covers every date.
func validOn(c Citation, date string) bool {
	return (c.ValidFrom == nil || *c.ValidFrom <= date) && (c.ValidTo == nil || date <= *c.ValidTo)
}

func sameNumber(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// citedValue is a citation's number and unit, read from its node when the
// citation carries none.
func citedValue(c Citation, nodes map[string]Node) (*float64, string) {
	if c.Value != nil {
		return c.Value, c.Unit
	}
	if n, ok := nodes[c.NodeID]; ok {
		return factValue(n.Properties)
	}
	return nil, ""
}

var dateSuffix = regexp.MustCompile(`:(\d{4}-\d{2}-\d{2}|UNDATED)$`)

// seriesOf is the series of the fact a citation names: the node's own,
// else its id without the trailing date.
func seriesOf(c Citation, nodes map[string]Node) string {
	if n, ok := nodes[c.NodeID]; ok {
		if s, _ := n.Properties["series"].(string); s != "" {
			return s
		}
	}
	return dateSuffix.ReplaceAllString(c.NodeID, "")
}

// keyValueAt reports whether c gives the key's value in the key's unit.
func keyValueAt(c Citation, it Item, nodes map[string]Node) bool {
	v, u := citedValue(c, nodes)
	return v != nil && sameNumber(*v, *it.Value) && unitsMatch(it.Unit, u)
}

// scoreFacts sets recall and as-of accuracy. Recall asks for the key's
// value, in its unit, as in force on the date among the first K citations
// (of the hinted series, when the item names one). The question's fact is
// the hinted series, else the series that gave the key's value on the
// date, else those of the first K that give it on another date; as-of
// accuracy, when the turn cited the fact at all, asks that every citation
// of it in force on the date gives the key's value.
func scoreFacts(r *Result, it Item, t Turn, date string, nodes map[string]Node) {
	ofFact := func(c Citation) bool { return it.Series == "" || seriesOf(c, nodes) == it.Series }
	onDate, otherDates := map[string]bool{}, map[string]bool{}
	hinted := false
	for i, c := range t.Citations {
		if i >= K {
			break
		}
		if !ofFact(c) {
			continue
		}
		hinted = true
		if keyValueAt(c, it, nodes) {
			if validOn(c, date) {
				onDate[seriesOf(c, nodes)] = true
			} else {
				otherDates[seriesOf(c, nodes)] = true
			}
		}
	}
	recalled := len(onDate) > 0
	r.Recalled = &recalled
	for s := range onDate {
		r.Matched = append(r.Matched, s)
	}
	slices.Sort(r.Matched)
	facts := onDate
	switch {
	case it.Series != "" && hinted:
		facts = map[string]bool{it.Series: true}
	case !recalled:
		facts = otherDates
	}
	if len(facts) == 0 {
		return
	}
	accurate, shown := false, false
	for _, c := range t.Citations {
		if !facts[seriesOf(c, nodes)] || !validOn(c, date) {
			continue
		}
		v, u := citedValue(c, nodes)
		if v == nil || !unitsMatch(it.Unit, u) {
			continue
		}
		if !shown {
			r.Given, shown = v, true
		}
		if !sameNumber(*v, *it.Value) {
			accurate = false
			r.Given = v
			break
		}
		accurate = true
	}
	r.AsOfAccurate = &accurate
}

// scoreStale finds citations shown as in force on date — their own valid
// time covers it, or they are marked in force — whose graph node's valid
// time ended before it: an expired value presented as current.
func scoreStale(r *Result, t Turn, date string, nodes map[string]Node) {
	for _, c := range t.Citations {
		shownInForce := validOn(c, date) || (c.Status == "in_force" && c.ValidTo != nil && *c.ValidTo < date)
		if !shownInForce {
			continue
		}
		n, ok := nodes[c.NodeID]
		if !ok {
			continue
		}
		if ended, _ := n.Properties["valid_to"].(string); ended != "" && ended < date {
			r.Stale = append(r.Stale, c.NodeID+": ended "+ended+", shown as in force on "+date)
		}
	}
	ok := len(r.Stale) == 0
	r.NoStale = &ok
}

// scoreCitations checks every citation: the node exists, the URL is an
// official page and the fact's own source (not its concept's), a cited
// value is the node's, and where a copy of the page is kept, the page
// states the value.
func scoreCitations(r *Result, t Turn, nodes map[string]Node, pages Pages) {
	r.Citations = len(t.Citations)
	for _, c := range t.Citations {
		if why := invalidCitation(c, nodes, pages); why != "" {
			r.Invalid = append(r.Invalid, c.NodeID+": "+why)
			continue
		}
		r.ValidCitations++
	}
}

func invalidCitation(c Citation, nodes map[string]Node, pages Pages) string {
	n, ok := nodes[c.NodeID]
	if !ok {
		return "no such graph node"
	}
	if confidence, _ := n.Properties["confidence"].(string); confidence == seeddata.ConfidenceCorroborated {
		return invalidCorroborated(c, n)
	}
	if !seeddata.IsOfficialURL(c.URL) {
		return "url " + quote(c.URL) + " is not an official source"
	}
	if c.Value != nil && !nodeHasValue(n, *c.Value) {
		return "cited value is not the node's"
	}
	own, _ := n.Properties["source_url"].(string)
	if own == "" {
		return "the fact has no source of its own; " + quote(c.URL) + " is another node's"
	}
	if pageKey(own) != pageKey(c.URL) {
		return "cites " + quote(c.URL) + ", the fact's own source is " + quote(own)
	}
	if page, kept := pages.Lookup(c.URL); kept && page.Complete {
		if v, u := citedValue(c, nodes); v != nil && !page.States(*v, u) {
			return "the page " + quote(c.URL) + " (read " + page.ReadOn + ") does not state " + formatValue(*v, u)
		}
	}
	return ""
}

// invalidCorroborated: a value no official page states is cited as
// corroborated, with one of its own secondary sources.
func invalidCorroborated(c Citation, n Node) string {
	if c.Confidence != seeddata.ConfidenceCorroborated {
		return "a corroborated value is cited without saying so"
	}
	if c.Value != nil && !nodeHasValue(n, *c.Value) {
		return "cited value is not the node's"
	}
	for _, u := range stringsOf(n.Properties["corroborating_urls"]) {
		if pageKey(u) == pageKey(c.URL) {
			return ""
		}
	}
	return "cites " + quote(c.URL) + ", which is not one of the value's corroborating sources"
}

func stringsOf(v any) []string {
	var out []string
	switch list := v.(type) {
	case []string:
		out = list
	case []any:
		for _, item := range list {
			if s, ok := item.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func quote(s string) string { return "\"" + s + "\"" }

func nodeHasValue(n Node, v float64) bool {
	for _, key := range []string{"percent", "amount", "value"} {
		if got, ok := number(n.Properties[key]); ok && sameNumber(got, v) {
			return true
		}
	}
	return false
}

// formatValue writes a value with its unit: 13.5%, 232 EUR/week.
func formatValue(v float64, unit string) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if u, ok := parseUnit(unit); ok && u.percent {
		return s + "%"
	}
	if unit == "" {
		return s
	}
	return s + " " + unit
}
