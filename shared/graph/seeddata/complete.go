package seeddata

import (
	"cmp"
	"slices"
	"strings"
)

// undatedSuffix ends the id of a value whose source states no effective date.
const undatedSuffix = "UNDATED"

// factRelationships is the edge type from a concept to a fact of each label.
var factRelationships = map[string]string{
	"Rate":      "HAS_RATE",
	"Threshold": "HAS_THRESHOLD",
	"Relief":    "HAS_RELIEF",
	"Benefit":   "HAS_BENEFIT",
	"Timeline":  "HAS_TIMELINE",
	"Rule":      "HAS_RULE",
	"Section":   "HAS_SECTION",
	"Guidance":  "HAS_GUIDANCE",
}

// complete fills in what a record may leave out, so that a change point is
// one new record: its id, the closing date of the value it replaces, its
// status, and the edge from its concept.
func (ds *Dataset) complete() {
	for i := range ds.Nodes {
		n := &ds.Nodes[i]
		if n.Series != "" && n.ID == "" {
			n.ID = n.Series + ":" + cmp.Or(n.ValidFrom, undatedSuffix)
		}
	}
	for _, members := range ds.seriesMembers() {
		for k := 0; k+1 < len(members); k++ {
			prev, next := &ds.Nodes[members[k]], ds.Nodes[members[k+1]]
			if prev.ValidTo == "" && next.ValidFrom != "" {
				prev.ValidTo = dayBefore(next.ValidFrom)
			}
		}
	}
	for i := range ds.Nodes {
		n := &ds.Nodes[i]
		if n.Series != "" && n.Status == "" {
			n.Status = derivedStatus(*n)
		}
	}
	for _, n := range ds.Nodes {
		if n.Series == "" {
			continue
		}
		ds.Edges = append(ds.Edges, Edge{From: seriesConcept(n.Series), Type: factRelationships[n.Label], To: n.ID})
	}
}

// seriesMembers maps each series to the indexes of its nodes, ordered by
// validFrom (one whose start the source does not state first).
func (ds Dataset) seriesMembers() map[string][]int {
	out := map[string][]int{}
	for i, n := range ds.Nodes {
		if n.Series != "" {
			out[n.Series] = append(out[n.Series], i)
		}
	}
	for _, members := range out {
		slices.SortStableFunc(members, func(a, b int) int {
			return strings.Compare(ds.Nodes[a].ValidFrom, ds.Nodes[b].ValidFrom)
		})
	}
	return out
}

// derivedStatus is the status the dates give on the day the value was last
// verified: closed before it, superseded; starting after it, announced; else
// in force. Dates are ISO, so they compare as strings.
func derivedStatus(n DetailNode) string {
	switch {
	case n.ValidTo != "" && n.ValidTo < n.LastVerifiedAt:
		return "superseded"
	case n.ValidFrom != "" && n.ValidFrom > n.LastVerifiedAt:
		return "announced"
	default:
		return "in_force"
	}
}

// statusAgrees reports whether a stated status fits the dates: a future
// value may already be enacted, otherwise the status is the derived one.
func statusAgrees(n DetailNode) bool {
	want := derivedStatus(n)
	return n.Status == want || (want == "announced" && n.Status == "enacted")
}

// seriesConcept is the concept id a series belongs to: its first three parts.
func seriesConcept(series string) string {
	parts := strings.SplitN(series, ":", 4)
	if len(parts) < 4 {
		return ""
	}
	return strings.Join(parts[:3], ":")
}

func dayBefore(iso string) string {
	t, err := parseDate(iso)
	if err != nil {
		return ""
	}
	return t.AddDate(0, 0, -1).Format(dateLayout)
}

func dayAfter(iso string) string {
	t, err := parseDate(iso)
	if err != nil {
		return ""
	}
	return t.AddDate(0, 0, 1).Format(dateLayout)
}
