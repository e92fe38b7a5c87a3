package graph

import (
	"context"
	"time"
)

// NodeWrite is one node to MERGE by id under a whitelisted label. Property
// keys are snake_case; values are strings, numbers, booleans, times or lists
// of those. It reaches a backend only after the ingress guard accepted it
// (graph/write).
type NodeWrite struct {
	Label string
	ID    string
	Props map[string]any
}

// EdgeWrite is one relationship of a whitelisted type to MERGE between two
// nodes identified by id.
type EdgeWrite struct {
	FromID string
	Type   string
	ToID   string
	Props  map[string]any
}

// Writer is implemented by backends that accept generic node and edge writes
// (enrichment results). Like ConceptStore.UpsertConcepts it is called only by
// the write service, which guards every item first; all items go in one
// transaction, created_at set once and updated_at = now.
type Writer interface {
	WriteNodesAndEdges(ctx context.Context, nodes []NodeWrite, edges []EdgeWrite, now time.Time) error
}
