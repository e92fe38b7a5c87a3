package memory

import (
	"context"
	"fmt"
	"time"

	"regintel/shared/graph"
)

// WriteNodesAndEdges upserts nodes (MERGE by id under a whitelisted label)
// and edges (MERGE between nodes that exist or are in the same call) as one
// atomic step, like the Bolt store's single transaction: everything is
// checked first and then applied under one lock, so a failing call changes
// nothing. created_at is set once, updated_at = now on every item. Values
// are stored as the Bolt store returns them: times as epoch milliseconds,
// ints as int64.
func (s *Store) WriteNodesAndEdges(ctx context.Context, nodes []graph.NodeWrite, edges []graph.EdgeWrite, now time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(nodes) == 0 && len(edges) == 0 {
		return nil
	}
	inBatch := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		if !graph.IsNodeLabel(n.Label) {
			return fmt.Errorf("memory graph: label %q is not whitelisted", n.Label)
		}
		if n.ID == "" {
			return fmt.Errorf("memory graph: node without id")
		}
		inBatch[n.ID] = true
	}
	for _, e := range edges {
		if !graph.IsRelationshipType(e.Type) {
			return fmt.Errorf("memory graph: relationship %q is not whitelisted", e.Type)
		}
	}
	ts := graph.Timestamp(now)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range edges {
		for _, id := range []string{e.FromID, e.ToID} {
			if s.nodes[id] == nil && !inBatch[id] {
				return fmt.Errorf("memory graph: edge %s: endpoint not found in the graph", e.Type)
			}
		}
	}
	for _, n := range nodes {
		node := s.merge(n.Label, n.ID, ts)
		for k, v := range storedProps(n.Props) {
			node.properties[k] = v
		}
	}
	for _, e := range edges {
		s.link(e.FromID, e.Type, e.ToID, ts, storedProps(e.Props))
	}
	return nil
}

// storedProps drops what the caller may not set (id and the store's own
// timestamps) and converts values to their stored form.
func storedProps(props map[string]any) map[string]any {
	out := make(map[string]any, len(props))
	for k, v := range props {
		switch k {
		case "id", "created_at", "updated_at":
			continue
		}
		switch tv := v.(type) {
		case time.Time:
			v = graph.Timestamp(tv)
		case int:
			v = int64(tv)
		case int32:
			v = int64(tv)
		}
		out[k] = v
	}
	return out
}
