// Package seeddata holds a small, real IE/UK/EU regulatory dataset (concepts,
// rate and threshold nodes, and the edges between them) used to seed the
// in-memory graph locally and the Bolt graph through `make graph-seed`.
// The data lives in seed.json so it can be reviewed and edited as data.
package seeddata

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"

	"regintel/shared/concept"
	"regintel/shared/graph"
)

//go:embed seed.json
var seedJSON []byte

// DetailNode is a non-concept node such as a Rate or Threshold.
type DetailNode struct {
	ID           string         `json:"id"`
	Label        string         `json:"label"`
	PrefLabel    string         `json:"prefLabel"`
	Jurisdiction string         `json:"jurisdiction"`
	Properties   map[string]any `json:"properties"`
}

// Edge links two nodes of the dataset by id.
type Edge struct {
	From string `json:"from"`
	Type string `json:"type"`
	To   string `json:"to"`
}

// Dataset is the whole seed graph.
type Dataset struct {
	Concepts []concept.Concept `json:"concepts"`
	Nodes    []DetailNode      `json:"nodes"`
	Edges    []Edge            `json:"edges"`
}

// Load decodes the embedded dataset and checks it: concept ids are canonical,
// ids are unique, labels and relationship types are whitelisted, and every
// edge joins two nodes of the dataset.
func Load() (Dataset, error) {
	var ds Dataset
	dec := json.NewDecoder(bytes.NewReader(seedJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ds); err != nil {
		return Dataset{}, fmt.Errorf("seeddata: decode: %w", err)
	}
	if err := ds.validate(); err != nil {
		return Dataset{}, fmt.Errorf("seeddata: %w", err)
	}
	return ds, nil
}

func (ds Dataset) validate() error {
	seen := map[string]bool{}
	for _, c := range ds.Concepts {
		want := concept.CanonicalID(c.Domain, c.Jurisdiction, c.Kind)
		if c.ID != want {
			return fmt.Errorf("concept %q: id is not canonical (want %q)", c.ID, want)
		}
		if c.PrefLabel == "" || c.Definition == "" || len(c.SourceURLs) == 0 {
			return fmt.Errorf("concept %q: prefLabel, definition and sourceUrls are required", c.ID)
		}
		if seen[c.ID] {
			return fmt.Errorf("duplicate id %q", c.ID)
		}
		seen[c.ID] = true
	}
	for _, n := range ds.Nodes {
		if !graph.IsNodeLabel(n.Label) || n.Label == "Concept" || n.Label == "Label" {
			return fmt.Errorf("node %q: label %q is not a detail label", n.ID, n.Label)
		}
		if n.ID == "" || seen[n.ID] {
			return fmt.Errorf("node %q: empty or duplicate id", n.ID)
		}
		seen[n.ID] = true
	}
	for _, e := range ds.Edges {
		if !graph.IsRelationshipType(e.Type) {
			return fmt.Errorf("edge %s-%s->%s: relationship type not whitelisted", e.From, e.Type, e.To)
		}
		if !seen[e.From] || !seen[e.To] {
			return fmt.Errorf("edge %s-%s->%s: unknown endpoint", e.From, e.Type, e.To)
		}
	}
	return nil
}

// Writes returns the detail nodes and edges as generic graph writes, to be
// written after the concepts themselves.
func (ds Dataset) Writes() ([]graph.NodeWrite, []graph.EdgeWrite) {
	nodes := make([]graph.NodeWrite, 0, len(ds.Nodes))
	for _, n := range ds.Nodes {
		props := map[string]any{"pref_label": n.PrefLabel, "jurisdiction": n.Jurisdiction}
		for k, v := range n.Properties {
			props[k] = v
		}
		nodes = append(nodes, graph.NodeWrite{Label: n.Label, ID: n.ID, Props: props})
	}
	edges := make([]graph.EdgeWrite, 0, len(ds.Edges))
	for _, e := range ds.Edges {
		edges = append(edges, graph.EdgeWrite{FromID: e.From, Type: e.Type, ToID: e.To})
	}
	return nodes, edges
}
