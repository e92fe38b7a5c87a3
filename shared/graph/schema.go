package graph

import (
	"slices"
	"strings"
	"time"
)

// NodeLabels is the whitelist of node labels the graph may hold. Every label
// gets a uniqueness constraint on id, and the ingress guard rejects any other.
var NodeLabels = []string{
	"Concept",
	"Label",
	"Section",
	"Benefit",
	"Relief",
	"Rate",
	"Threshold",
	"Timeline",
	"Guidance",
	"Jurisdiction",
	"Rule",
}

// RelationshipTypes is the whitelist of relationship types the graph may hold.
var RelationshipTypes = []string{
	"HAS_ALT_LABEL",
	"HAS_RATE",
	"HAS_THRESHOLD",
	"HAS_TIMELINE",
	"HAS_SECTION",
	"HAS_BENEFIT",
	"HAS_RELIEF",
	"HAS_GUIDANCE",
	"HAS_RULE",
	"IN_JURISDICTION",
	"IMPLEMENTS",
	"RELATED_TO",
	// Enrichment: a concept cites sections and guidance, and its timelines
	// are linked by what they mean, so a query can ask for "the lookback
	// window" without reading Timeline properties.
	"CITES",
	"LOOKBACK_WINDOW",
	"FILING_DEADLINE",
	"PAYMENT_DEADLINE",
	"WAITING_PERIOD",
	"CLAIM_WINDOW",
}

// DetailRelationshipTypes are the edges whose presence means a concept already
// has useful detail (sections, rates, thresholds, benefits, reliefs, timelines),
// so no enrichment job is needed.
var DetailRelationshipTypes = []string{
	"HAS_SECTION",
	"HAS_RATE",
	"HAS_THRESHOLD",
	"HAS_BENEFIT",
	"HAS_RELIEF",
	"HAS_TIMELINE",
	"CITES",
	"LOOKBACK_WINDOW",
	"FILING_DEADLINE",
	"PAYMENT_DEADLINE",
	"WAITING_PERIOD",
	"CLAIM_WINDOW",
}

// IsNodeLabel reports whether label is whitelisted.
func IsNodeLabel(label string) bool { return slices.Contains(NodeLabels, label) }

// IsRelationshipType reports whether typ is whitelisted.
func IsRelationshipType(typ string) bool { return slices.Contains(RelationshipTypes, typ) }

// Timestamps (created_at, updated_at, last_verified_at,
// enrichment_requested_at) are stored as integer epoch milliseconds in UTC,
// computed in Go. Cypher's timestamp() is never used: Memgraph's counts
// microseconds and Neo4j's milliseconds, so the two would disagree.

// Timestamp converts t to the stored form: epoch milliseconds.
func Timestamp(t time.Time) int64 { return t.UnixMilli() }

// TimeFromTimestamp converts a stored epoch-millisecond value back to UTC time.
func TimeFromTimestamp(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

const altLabelPrefix = "LABEL:"

// AltLabelID is the id of the :Label alias node for an alternative label:
// "LABEL:" plus the text trimmed, whitespace collapsed and lower-cased, so
// "Irish  VAT" and "irish vat" share one node.
func AltLabelID(text string) string {
	return altLabelPrefix + strings.ToLower(strings.Join(strings.Fields(text), " "))
}

// Provenance says where a node, an alias or a text property came from.
type Provenance string

const (
	// ProvenanceOfficial: a curated dataset record, or enrichment that found
	// the text, with a verified quote, on an allowlisted official source.
	ProvenanceOfficial Provenance = "official"
	// ProvenanceCapture: a tenant's model captured it. The shared graph keeps
	// only a bare node (id and its parts) for a capture; the captured text
	// stays with the tenant's conversation.
	ProvenanceCapture Provenance = "capture"
)

// ProvenanceKey is the property holding a node's or an alias edge's
// provenance. A node without it is treated as a capture: its text is
// never shown.
const ProvenanceKey = "provenance"

// IsOfficial reports whether stored properties carry official provenance.
func IsOfficial(props map[string]any) bool {
	p, _ := props[ProvenanceKey].(string)
	return p == string(ProvenanceOfficial)
}

// ConceptTextProperties are a concept's text properties: only an official
// node shows them.
var ConceptTextProperties = []string{"pref_label", "alt_labels", "definition", "description", "source_urls", "title"}

// FactTimeProperties are a fact's valid time and identity in its history:
// ISO dates (valid_to absent while in force), one of FactStatuses, the
// series every dated value of one rate or threshold shares, and the
// source's own identifier.
var FactTimeProperties = []string{"valid_from", "valid_to", "status", "series", "official_id"}

// NodeProperties are properties the graph's own model adds to the ingress
// guard's per-label whitelist: provenance on every node, valid time on every
// fact label.
var NodeProperties = func() map[string][]string {
	out := map[string][]string{}
	for _, label := range NodeLabels {
		out[label] = []string{ProvenanceKey}
	}
	for _, kind := range FactKinds {
		out[kind] = append(out[kind], FactTimeProperties...)
	}
	return out
}()

// MarkOfficial returns copies of nodes with official provenance, for
// curated dataset loads.
func MarkOfficial(nodes []NodeWrite) []NodeWrite {
	out := make([]NodeWrite, len(nodes))
	for i, n := range nodes {
		props := make(map[string]any, len(n.Props)+1)
		for k, v := range n.Props {
			props[k] = v
		}
		props[ProvenanceKey] = string(ProvenanceOfficial)
		out[i] = NodeWrite{Label: n.Label, ID: n.ID, Props: props}
	}
	return out
}

// BareProperties are what a node that is not official shows: its id parts
// and bookkeeping, never text.
var BareProperties = []string{
	"domain", "kind", "jurisdiction", ProvenanceKey,
	"created_at", "updated_at", "last_verified_at", "enrichment_requested_at", "ingestion_status", "source_content_hashes",
}

// ShownNode is n as readers see it: an official node whole, any other node
// bare (its id, labels, id parts and bookkeeping only).
func ShownNode(n Node) Node {
	if IsOfficial(n.Properties) {
		return n
	}
	props := make(map[string]any, len(BareProperties))
	for _, k := range BareProperties {
		if v, ok := n.Properties[k]; ok {
			props[k] = v
		}
	}
	n.Properties = props
	n.PrefLabel, n.Definition = "", ""
	return n
}
