// Package seeddata holds the curated IE/UK/EU regulatory dataset: concepts,
// and dated, sourced rate, threshold, relief and benefit values with the
// edges between them. It seeds the in-memory graph locally and the Bolt
// graph through `make graph-seed`. The data lives in seed.json, described
// by dataset.schema.json, so it can be reviewed and edited as data.
package seeddata

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"time"

	"regintel/shared/concept"
	"regintel/shared/graph"
)

//go:embed seed.json
var seedJSON []byte

// families holds one document per family of rules (families/<name>.json),
// in the same format as seed.json; Load merges them all before completing
// and validating, so a family can be reviewed and extended on its own.
//
//go:embed families
var families embed.FS

// DetailNode is a non-concept node such as a Rate or Threshold. A fact node
// (one of graph.FactKinds) is one dated value of a series: a change point is
// a new node of the same series, never an edit of the old one's value.
type DetailNode struct {
	// ID is <Series>:<ValidFrom>, or <Series>:UNDATED when the source states
	// no effective date. Load fills it in when the record leaves it out.
	ID           string `json:"id,omitempty"`
	Label        string `json:"label"`
	PrefLabel    string `json:"prefLabel"`
	Jurisdiction string `json:"jurisdiction"`
	// Series is shared by every dated value of one rate or threshold:
	// <concept id>:<LABEL>:<NAME>, e.g. TAX:IE:USC:RATE:BAND3.
	Series string `json:"series,omitempty"`
	// ValidFrom and ValidTo are ISO dates (inclusive). ValidTo is empty
	// while the value is in force; Load derives it from the next value of
	// the series when the record leaves it out.
	ValidFrom string `json:"validFrom,omitempty"`
	ValidTo   string `json:"validTo,omitempty"`
	// Status is one of graph.FactStatuses; Load derives it from the dates
	// and LastVerifiedAt when the record leaves it out.
	Status string `json:"status,omitempty"`
	// GapReason explains, in our own words, why this value does not start
	// the day after the previous one ended.
	GapReason string `json:"gapReason,omitempty"`
	SourceURL string `json:"sourceUrl,omitempty"`
	// OfficialID is an Irish Statute Book ELI, a legislation.gov.uk URI or
	// a Revenue eBrief number.
	OfficialID     string         `json:"officialId,omitempty"`
	LastVerifiedAt string         `json:"lastVerifiedAt,omitempty"`
	Properties     map[string]any `json:"properties"`
	// Confidence is "official" (the default: SourceURL is an official page
	// stating the value) or "corroborated": no official page stating it was
	// found, and CorroboratingURLs names two independent secondary sources
	// that agree on it (SourceURL is then the first of them).
	Confidence        string   `json:"confidence,omitempty"`
	CorroboratingURLs []string `json:"corroboratingUrls,omitempty"`
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
	// AliasSources says, per concept id, where each alt label comes from:
	// an https page that uses the name, or "usage: <why people say it>".
	AliasSources map[string]map[string]string `json:"-"`
}

// document is one file of the dataset as written: a concept record also
// names where each of its aliases comes from.
type document struct {
	Concepts []datasetConcept `json:"concepts"`
	Nodes    []DetailNode     `json:"nodes"`
	Edges    []Edge           `json:"edges"`
}

type datasetConcept struct {
	concept.Concept
	AliasSources map[string]string `json:"aliasSources,omitempty"`
}

// Load decodes the embedded dataset, completes it (ids, closing dates,
// statuses, the edges from each concept to its values) and validates it.
func Load() (Dataset, error) {
	docs := [][]byte{seedJSON}
	entries, err := fs.ReadDir(families, "families")
	if err != nil {
		return Dataset{}, fmt.Errorf("seeddata: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".json" {
			continue
		}
		data, err := fs.ReadFile(families, "families/"+e.Name())
		if err != nil {
			return Dataset{}, fmt.Errorf("seeddata: %w", err)
		}
		docs = append(docs, data)
	}
	return ParseAll(docs...)
}

// Validate reports whether data is a valid dataset document.
func Validate(data []byte) error {
	_, err := Parse(data)
	return err
}

// Parse checks data against the JSON schema, decodes it, completes it as
// Load does and checks the rules the schema cannot express.
func Parse(data []byte) (Dataset, error) { return ParseAll(data) }

// ParseAll checks each document against the JSON schema, merges them into
// one dataset and completes and validates it as Parse does.
func ParseAll(docs ...[]byte) (Dataset, error) {
	ds := Dataset{AliasSources: map[string]map[string]string{}}
	for i, data := range docs {
		if err := checkSchema(data); err != nil {
			return Dataset{}, fmt.Errorf("seeddata: document %d: %w", i, err)
		}
		var part document
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&part); err != nil {
			return Dataset{}, fmt.Errorf("seeddata: document %d: decode: %w", i, err)
		}
		for _, c := range part.Concepts {
			ds.Concepts = append(ds.Concepts, c.Concept)
			if len(c.AliasSources) > 0 {
				ds.AliasSources[c.ID] = c.AliasSources
			}
		}
		ds.Nodes = append(ds.Nodes, part.Nodes...)
		ds.Edges = append(ds.Edges, part.Edges...)
	}
	ds.complete()
	if err := ds.validate(); err != nil {
		return Dataset{}, fmt.Errorf("seeddata: %w", err)
	}
	return ds, nil
}

// Provenance is the provenance every node of this dataset is written with:
// each value was taken from an official source.
const Provenance = "official"

// Writes returns the detail nodes and edges as generic graph writes, to be
// written after the concepts themselves.
func (ds Dataset) Writes() ([]graph.NodeWrite, []graph.EdgeWrite) {
	nodes := make([]graph.NodeWrite, 0, len(ds.Nodes))
	for _, n := range ds.Nodes {
		nodes = append(nodes, graph.NodeWrite{Label: n.Label, ID: n.ID, Props: n.props()})
	}
	edges := make([]graph.EdgeWrite, 0, len(ds.Edges))
	for _, e := range ds.Edges {
		edges = append(edges, graph.EdgeWrite{FromID: e.From, Type: e.Type, ToID: e.To})
	}
	return nodes, edges
}

// props are the stored properties: snake_case keys, dates as ISO strings
// and the verification time as epoch milliseconds like every timestamp.
func (n DetailNode) props() map[string]any {
	props := map[string]any{"pref_label": n.PrefLabel, "jurisdiction": n.Jurisdiction, "provenance": Provenance}
	for k, v := range n.Properties {
		props[snakeCase(k)] = v
	}
	optional := map[string]string{
		"series": n.Series, "valid_from": n.ValidFrom, "valid_to": n.ValidTo, "status": n.Status,
		"source_url": n.SourceURL, "official_id": n.OfficialID, "confidence": n.Confidence,
	}
	if n.Confidence == ConfidenceCorroborated {
		// The graph stores only official pages as source_url; a corroborated
		// value names its secondary sources under their own key instead.
		delete(optional, "source_url")
		props["corroborating_urls"] = n.CorroboratingURLs
	}
	for k, v := range optional {
		if v != "" {
			props[k] = v
		}
	}
	if verified, err := parseDate(n.LastVerifiedAt); err == nil {
		props["last_verified_at"] = graph.Timestamp(verified)
	}
	if n.Confidence == ConfidenceCorroborated {
		// No official page states it: its sources are the secondary pages,
		// kept apart from source_url, which names official pages only.
		delete(props, "source_url")
		props["corroborating_urls"] = n.CorroboratingURLs
	}
	return props
}

func snakeCase(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			b = append(b, '_', c+'a'-'A')
			continue
		}
		b = append(b, c)
	}
	return string(b)
}

// dateLayout is the ISO calendar date every date in the dataset uses.
const dateLayout = "2006-01-02"

func parseDate(s string) (time.Time, error) { return time.Parse(dateLayout, s) }
