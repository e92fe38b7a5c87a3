package memory

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"strings"

	"regintel/shared/graph"
)

var _ graph.ChangeReader = (*Store)(nil)

// Changes returns up to q.Limit nodes and edges changed after q.After, in
// (updated_at, key) order (graph.ChangeReader). It scans the whole store,
// which is fine at local-run sizes.
func (s *Store) Changes(ctx context.Context, q graph.ChangeQuery) ([]graph.Change, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if q.Limit <= 0 {
		return nil, errors.New("memory graph: change query without a limit")
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	keep := func(n *node) bool { return n != nil && matchesFilters(n.labels, n.properties, q) }
	pending := func(updatedAt int64, key string) bool {
		return q.After.Before(updatedAt, key) && (q.Until == 0 || updatedAt <= q.Until)
	}
	var out []graph.Change
	for id, n := range s.nodes {
		updatedAt, ok := n.properties["updated_at"].(int64)
		key := graph.NodeChangeKey(id)
		if !ok || !pending(updatedAt, key) || !keep(n) {
			continue
		}
		gn := n.toGraphNode()
		created, _ := n.properties["created_at"].(int64)
		out = append(out, graph.Change{Cursor: graph.ChangeCursor{UpdatedAt: updatedAt, Key: key}, CreatedAt: created, Node: &gn})
	}
	for from, edges := range s.out {
		for _, e := range edges {
			key := graph.EdgeChangeKey(from, e.typ, e.to)
			if !pending(e.updatedAt, key) || !keep(s.nodes[from]) || !keep(s.nodes[e.to]) {
				continue
			}
			ge := graph.Edge{FromID: from, Type: e.typ, ToID: e.to, Properties: maps.Clone(e.properties), UpdatedAt: graph.TimeFromTimestamp(e.updatedAt)}
			ge.Properties["created_at"], ge.Properties["updated_at"] = e.createdAt, e.updatedAt
			out = append(out, graph.Change{Cursor: graph.ChangeCursor{UpdatedAt: e.updatedAt, Key: key}, CreatedAt: e.createdAt, Edge: &ge})
		}
	}
	slices.SortFunc(out, func(a, b graph.Change) int {
		return cmp.Or(cmp.Compare(a.Cursor.UpdatedAt, b.Cursor.UpdatedAt), strings.Compare(a.Cursor.Key, b.Cursor.Key))
	})
	if len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// matchesFilters applies a change query's label and jurisdiction filters to
// one node. Only whitelisted labels are ever reported.
func matchesFilters(labels []string, props map[string]any, q graph.ChangeQuery) bool {
	wanted := q.Labels
	if len(wanted) == 0 {
		wanted = graph.NodeLabels
	}
	if !slices.ContainsFunc(labels, func(l string) bool { return slices.Contains(wanted, l) && graph.IsNodeLabel(l) }) {
		return false
	}
	if len(q.Jurisdictions) == 0 {
		return true
	}
	j, _ := props["jurisdiction"].(string)
	return j != "" && slices.Contains(q.Jurisdictions, j)
}
