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
