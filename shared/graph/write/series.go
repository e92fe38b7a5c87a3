package write

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"regintel/shared/graph"
)

// FactValue is one value of a fact series to record: Node carries the
// value's label (Rate, Threshold...) and properties, including "series"
// and, when the source states one, "valid_from" (an ISO date). Its ID is
// derived from the series and the date, so the same value recorded twice
// lands on one node.
type FactValue struct {
	ConceptID    string
	Relationship string // HAS_RATE, HAS_THRESHOLD...
	Node         graph.NodeWrite
}

// ErrNoSeriesReader is returned by RecordFactValues when the store cannot
// read a series' history.
var ErrNoSeriesReader = errors.New("graph store cannot read fact series")

// undatedMarker ends the node id of a series' undated value; the day it
// was seen is its created_at and last_verified_at.
const undatedMarker = ":UNDATED"

// RecordFactValues records new values of fact series without overwriting
// any: a dated value closes the value in force before it (valid_to = the
// day before its valid_from, status superseded once that day has passed)
// and is added as a node of its own, so the history stays. A value whose
// source states no date is recorded undated, with the day it was seen
// (created_at, last_verified_at) and its own node, unless the series already
// holds it undated or in force today, in which case that node is only
// re-verified; no date is invented and nothing is closed. Everything goes
// through the guard in one Write.
func (s *Service) RecordFactValues(ctx context.Context, values []FactValue) (Result, error) {
	reader, ok := s.store.(graph.SeriesReader)
	if !ok {
		return Result{}, ErrNoSeriesReader
	}
	var names []string
	for _, v := range values {
		name, _ := v.Node.Props["series"].(string)
		if name == "" {
			return Result{}, fmt.Errorf("fact value %s: no series", safeID(v.Node.ID))
		}
		names = append(names, name)
	}
	stored, err := reader.FactSeries(ctx, names)
	if err != nil {
		return Result{}, fmt.Errorf("read %d fact series: %w", len(names), err)
	}
	h := newSeriesHistory(stored, s.now().UTC())
	ordered := slices.Clone(values)
	slices.SortStableFunc(ordered, func(a, b FactValue) int { return cmp.Compare(validFrom(a.Node.Props), validFrom(b.Node.Props)) })
	var nodes []graph.NodeWrite
	var edges []graph.EdgeWrite
	for _, v := range ordered {
		n, closing := h.place(v.Node)
		nodes = append(nodes, closing...)
		nodes = append(nodes, n)
		edges = append(edges, graph.EdgeWrite{FromID: v.ConceptID, Type: v.Relationship, ToID: n.ID, Props: v.edgeProps()})
	}
	return s.Write(ctx, nodes, edges)
}

func (v FactValue) edgeProps() map[string]any {
	if u, ok := v.Node.Props["source_url"].(string); ok && u != "" {
		return map[string]any{"source_urls": []string{u}}
	}
	return nil
}

func validFrom(props map[string]any) string {
	d, _ := props["valid_from"].(string)
	return d
}

// seriesHistory is the stored values of the series being written to, kept
// up to date as values are placed.
type seriesHistory struct {
	bySeries map[string][]graph.Node
	now      time.Time
	today    string
}

func newSeriesHistory(stored []graph.Node, now time.Time) *seriesHistory {
	h := &seriesHistory{bySeries: map[string][]graph.Node{}, now: now, today: now.Format(graph.DateLayout)}
	for _, n := range stored {
		if !graph.IsOfficial(n.Properties) {
			continue
		}
		name, _ := n.Properties["series"].(string)
		h.bySeries[name] = append(h.bySeries[name], n)
	}
	return h
}

// place gives the value its node id, dates and status, and returns the
// writes that close the value it follows.
func (h *seriesHistory) place(in graph.NodeWrite) (graph.NodeWrite, []graph.NodeWrite) {
	props := make(map[string]any, len(in.Props)+3)
	for k, v := range in.Props {
		props[k] = v
	}
	name := props["series"].(string)
	from := validFrom(props)
	if from == "" {
		return h.placeUndated(in.Label, name, props), nil
	}
	n := graph.NodeWrite{Label: in.Label, ID: FactValueID(name, from), Props: props}
	var closing []graph.NodeWrite
	for _, old := range h.bySeries[name] {
		oldFrom := validFrom(old.Properties)
		oldTo, _ := old.Properties["valid_to"].(string)
		switch {
		case old.ID == n.ID || oldFrom == "":
		case oldFrom < from && (oldTo == "" || oldTo >= from):
			closing = append(closing, h.closeWrite(old, graph.DayBefore(from)))
		case oldFrom > from && props["valid_to"] == nil:
			// The new value sits before a later one: it ends where that starts.
			if end := graph.DayBefore(oldFrom); validTo(props) == "" || end < validTo(props) {
				props["valid_to"] = end
			}
		}
	}
	if _, set := props["status"]; !set {
		props["status"] = h.status(from, validTo(props))
	}
	h.bySeries[name] = append(h.bySeries[name], graph.Node{ID: n.ID, Labels: []string{in.Label}, Properties: props})
	return n, closing
}

func validTo(props map[string]any) string {
	d, _ := props["valid_to"].(string)
	return d
}

// status is a dated value's life stage on the day it is written.
func (h *seriesHistory) status(from, to string) string {
	switch {
	case from > h.today:
		return "announced"
	case to != "" && to < h.today:
		return "superseded"
	}
	return "in_force"
}

// closeWrite ends a stored value the day before its successor starts.
func (h *seriesHistory) closeWrite(old graph.Node, end string) graph.NodeWrite {
	props := map[string]any{"valid_to": end}
	if end < h.today {
		props["status"] = "superseded"
	}
	old.Properties["valid_to"] = end
	label := graph.FactKind(old.Labels)
	return graph.NodeWrite{Label: label, ID: old.ID, Props: props}
}

// placeUndated re-verifies the series' node holding the same value, undated
// or in force today, or adds an undated node.
func (h *seriesHistory) placeUndated(label, name string, props map[string]any) graph.NodeWrite {
	props["last_verified_at"] = h.now
	for _, old := range h.bySeries[name] {
		from, to := validFrom(old.Properties), validTo(old.Properties)
		inForce := from != "" && from <= h.today && (to == "" || h.today <= to)
		if (from == "" || inForce) && sameValue(old.Properties, props) {
			return graph.NodeWrite{Label: label, ID: old.ID, Props: props}
		}
	}
	id := FactValueID(name, "")
	for n := 2; slices.ContainsFunc(h.bySeries[name], func(old graph.Node) bool { return old.ID == id }); n++ {
		id = fmt.Sprintf("%s-%d", FactValueID(name, ""), n)
	}
	h.bySeries[name] = append(h.bySeries[name], graph.Node{ID: id, Labels: []string{label}, Properties: props})
	return graph.NodeWrite{Label: label, ID: id, Props: props}
}

// notValues are the properties that say where a value came from, not what
// it is.
var notValues = []string{"source_url", "source_urls", "quote", "last_verified_at", graph.ProvenanceKey, "pref_label", "status", "official_id", "created_at", "updated_at"}

// sameValue reports whether a stored node holds every value in props.
func sameValue(stored, props map[string]any) bool {
	for k, v := range props {
		if slices.Contains(notValues, k) {
			continue
		}
		if fmt.Sprint(stored[k]) != fmt.Sprint(v) {
			return false
		}
	}
	return true
}

// FactValueID is the id RecordFactValues gives a value of series: the
// series and its valid_from, or, for the first undated value, the series
// and UNDATED (a second, different undated value adds "-2", and so on).
func FactValueID(series, validFrom string) string {
	if validFrom != "" {
		return series + ":" + validFrom
	}
	return series + undatedMarker
}
