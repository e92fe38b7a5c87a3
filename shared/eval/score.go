package eval

import (
	"math"
	"strings"

	"regintel/shared/graph/seeddata"
)

// K is how many of a turn's citations, in the order given to the model,
// count for recall.
const K = 8

// Result is one question's scores. A score that does not apply is nil: no
// recall for a question to decline, no as-of accuracy for a fact not
// recalled, no detection when the request named the date, no number
// accuracy or abstention without a real model.
type Result struct {
	ID           string `json:"id"`
	Series       string `json:"series,omitempty"`
	ExpectedAsOf string `json:"expectedAsOf"`
	AsOf         string `json:"asOf"`
	AsOfSource   string `json:"asOfSource"`
	Recalled     *bool  `json:"recalled,omitempty"`
	AsOfAccurate *bool  `json:"asOfAccurate,omitempty"`
	Detected     *bool  `json:"asOfDetected,omitempty"`
	// Citations counts the turn's citations, ValidCitations those that
	// resolve to a graph node with an official URL (and the node's value);
	// Invalid says why the others do not.
	Citations       int      `json:"citations"`
	ValidCitations  int      `json:"validCitations"`
	Invalid         []string `json:"invalid,omitempty"`
	NumbersAccurate *bool    `json:"numbersAccurate,omitempty"`
	Abstained       *bool    `json:"abstained,omitempty"`
	// Given is the value of the expected series' fact valid on the
	// expected date, as cited (nil when none was).
	Given  *float64 `json:"given,omitempty"`
	Answer string   `json:"answer,omitempty"`
	Error  string   `json:"error,omitempty"`
}

// inSeries reports whether a node is a value of series: its id is the
// series' (an undated fact of a graph without valid time) or starts with it.
func inSeries(nodeID, series string) bool {
	return nodeID == series || strings.HasPrefix(nodeID, series+":")
}

// validOn reports whether a citation's valid time covers date; an undated
// fact covers every date.
func validOn(c Citation, date string) bool {
	return (c.ValidFrom == nil || *c.ValidFrom <= date) && (c.ValidTo == nil || date <= *c.ValidTo)
}

func sameNumber(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// scoreFacts sets recall and as-of accuracy: the expected series among the
// first K citations, and the value of that series' fact valid on the
// expected date equal to the expected value (a neighbour, or no value
// covering the date, is wrong). A citation without a value is read by its
// node's.
func scoreFacts(r *Result, it Item, t Turn, date string, nodes map[string]Node) {
	recalled := false
	for i, c := range t.Citations {
		if i < K && inSeries(c.NodeID, it.Series) {
			recalled = true
		}
	}
	r.Recalled = &recalled
	if !recalled {
		return
	}
	accurate := false
	for _, c := range t.Citations {
		if !inSeries(c.NodeID, it.Series) || !validOn(c, date) {
			continue
		}
		v := c.Value
		if v == nil {
			v = nodeValue(nodes[c.NodeID])
		}
		r.Given = v
		accurate = v != nil && sameNumber(*v, *it.Value)
		if !accurate {
			break
		}
	}
	r.AsOfAccurate = &accurate
}

// scoreCitations checks every citation against the graph: the node exists,
// the URL is on an official host, and a cited value is the node's.
func scoreCitations(r *Result, t Turn, nodes map[string]Node) {
	r.Citations = len(t.Citations)
	for _, c := range t.Citations {
		n, ok := nodes[c.NodeID]
		switch {
		case !ok:
			r.Invalid = append(r.Invalid, c.NodeID+": no such graph node")
		case !seeddata.IsOfficialURL(c.URL):
			r.Invalid = append(r.Invalid, c.NodeID+": url "+quote(c.URL)+" is not an official source")
		case c.Value != nil && !nodeHasValue(n, *c.Value):
			r.Invalid = append(r.Invalid, c.NodeID+": cited value is not the node's")
		default:
			r.ValidCitations++
		}
	}
}

func quote(s string) string { return "\"" + s + "\"" }

// valueKeys are the properties that hold a fact's number, in the order
// citations read them.
var valueKeys = []string{"percent", "amount", "value"}

func nodeValue(n Node) *float64 {
	for _, key := range valueKeys {
		if v, ok := n.Properties[key].(float64); ok {
			return &v
		}
	}
	return nil
}

func nodeHasValue(n Node, v float64) bool {
	for _, key := range valueKeys {
		if got, ok := n.Properties[key].(float64); ok && sameNumber(got, v) {
			return true
		}
	}
	return false
}
