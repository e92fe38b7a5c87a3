// Package graph defines the shared rules graph as the rest of the system sees
// it: nodes, the read and write interfaces, and the whitelist of what may be
// stored. Implementations live in graph/memory (local) and graph/bolt
// (Memgraph in production, Neo4j in tests).
//
// Every tenant reads the same graph, so every node and alias edge records
// its provenance. Official: a curated dataset record, or enrichment that
// found the text, with a verified quote, on an allowlisted official page.
// Capture: a tenant's model named it. A capture is stored as a bare node
// (id, domain, kind, jurisdiction); its label, aliases and definition stay
// in the tenant's conversation. Readers see text only from official nodes
// and match names only through official aliases.
//
// Facts carry valid time as the source states it (valid_from, valid_to,
// status) beside record time (created_at, last_verified_at). The values of
// one rate or threshold over time share a series; a new value closes the
// one before it and is added, never written over it. Grounding picks the
// values valid on the turn's as-of date and the neighbouring ones.
package graph

import (
	"context"
	"time"

	"regintel/shared/concept"
)

// Node is a graph node as read back for prompts and APIs.
type Node struct {
	ID           string         `json:"id"`
	Labels       []string       `json:"labels"`
	PrefLabel    string         `json:"prefLabel,omitempty"`
	Jurisdiction string         `json:"jurisdiction,omitempty"`
	Definition   string         `json:"definition,omitempty"`
	Properties   map[string]any `json:"properties,omitempty"`
	UpdatedAt    time.Time      `json:"updatedAt"`
}

// Reader reads nodes by id in one round trip. Missing ids are simply absent
// from the result.
type Reader interface {
	GetNodesByIDs(ctx context.Context, ids []string) ([]Node, error)
}

// ConceptStore is what concept resolution needs from a graph backend. Writes
// reach it only through the write service (graph/write), which guards them.
type ConceptStore interface {
	Reader
	// UpsertConcepts MERGEs all concepts by id in one transaction. Official
	// ones: created_at set once, updated_at = now, alt labels and source
	// urls merged as sets, a :Label node per alt label linked by
	// HAS_ALT_LABEL, node, label and edge marked official. Captured ones
	// (any other provenance) only create a bare node (id, domain, kind,
	// jurisdiction, provenance capture) where none exists: no text, no
	// alias, and an existing node is left as it is.
	UpsertConcepts(ctx context.Context, concepts []concept.Concept, prov Provenance, now time.Time) error
	// HasUsefulDetail is true when the concept has edges to official detail
	// nodes (sections, rates, thresholds, benefits, reliefs, timelines) or
	// was verified at or after freshSince.
	HasUsefulDetail(ctx context.Context, id string, freshSince time.Time) (bool, error)
	// MarkEnrichmentRequested sets enrichment_requested_at = now unless it is
	// already at or after notBefore; it reports whether it set it, so at most
	// one enrichment job is queued per concept per window.
	MarkEnrichmentRequested(ctx context.Context, id string, now, notBefore time.Time) (bool, error)
	// ClearEnrichmentRequested undoes the mark set at markedAt (and only
	// that one), when the job could not be queued, so a retry queues it.
	ClearEnrichmentRequested(ctx context.Context, id string, markedAt time.Time) error
}
