package bolt

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"regintel/shared/graph"
)

var _ graph.Writer = (*Store)(nil)

// nodeLabelsQuery finds the labels of existing nodes by id, one index seek
// per whitelisted label.
var nodeLabelsQuery = func() string {
	parts := make([]string, len(graph.NodeLabels))
	for i, label := range graph.NodeLabels {
		parts[i] = fmt.Sprintf("MATCH (n:%s) WHERE n.id IN $ids RETURN n.id AS id, labels(n) AS labels", label)
	}
	return strings.Join(parts, " UNION ")
}()

// WriteNodesAndEdges upserts nodes (MERGE by id per label) and then edges
// (MERGE between existing endpoints) in one write transaction: one UNWIND
// statement per label and per (from label, type, to label) group. Labels and
// types are checked against the whitelist here as well as by the guard,
// because they are spliced into Cypher. Time values become epoch millis.
func (s *Store) WriteNodesAndEdges(ctx context.Context, nodes []graph.NodeWrite, edges []graph.EdgeWrite, now time.Time) error {
	if len(nodes) == 0 && len(edges) == 0 {
		return nil
	}
	nodeRows, err := nodeRowsByLabel(nodes)
	if err != nil {
		return err
	}
	for _, e := range edges {
		if !graph.IsRelationshipType(e.Type) {
			return fmt.Errorf("bolt graph: relationship %q is not whitelisted", e.Type)
		}
	}
	ts := graph.Timestamp(now)
	err = s.executeWrite(ctx, func(tx neo4j.ManagedTransaction) error {
		if err := mergeNodes(ctx, tx, nodeRows, ts); err != nil {
			return err
		}
		if len(edges) == 0 {
			return nil
		}
		return mergeEdges(ctx, tx, edges, ts)
	})
	if err != nil {
		return fmt.Errorf("bolt graph: write %d nodes and %d edges: %w", len(nodes), len(edges), err)
	}
	return nil
}

// nodeRowsByLabel checks the nodes and groups them by label as UNWIND rows.
func nodeRowsByLabel(nodes []graph.NodeWrite) (map[string][]any, error) {
	nodeRows := map[string][]any{}
	for _, n := range nodes {
		if !graph.IsNodeLabel(n.Label) {
			return nil, fmt.Errorf("bolt graph: label %q is not whitelisted", n.Label)
		}
		if n.ID == "" {
			return nil, errors.New("bolt graph: node without id")
		}
		nodeRows[n.Label] = append(nodeRows[n.Label], map[string]any{"id": n.ID, "props": propsParam(n.Props)})
	}
	return nodeRows, nil
}

// mergeNodes runs one MERGE statement per label, in label order.
func mergeNodes(ctx context.Context, tx neo4j.ManagedTransaction, nodeRows map[string][]any, ts int64) error {
	for _, label := range sortedKeys(nodeRows) {
		query := fmt.Sprintf(`UNWIND $rows AS row
MERGE (n:%s {id: row.id})
ON CREATE SET n.created_at = $now
SET n += row.props, n.updated_at = $now`, label)
		if err := runAndConsume(ctx, tx, query, map[string]any{"rows": nodeRows[label], "now": ts}); err != nil {
			return err
		}
	}
	return nil
}

// mergeEdges runs one MERGE statement per (from label, type, to label)
// group, in group order; the endpoints must already exist.
func mergeEdges(ctx context.Context, tx neo4j.ManagedTransaction, edges []graph.EdgeWrite, ts int64) error {
	labelOf, err := endpointLabels(ctx, tx, edges)
	if err != nil {
		return err
	}
	edgeRows := map[[3]string][]any{}
	for _, e := range edges {
		key := [3]string{labelOf[e.FromID], e.Type, labelOf[e.ToID]}
		edgeRows[key] = append(edgeRows[key], map[string]any{"from": e.FromID, "to": e.ToID, "props": propsParam(e.Props)})
	}
	keys := make([][3]string, 0, len(edgeRows))
	for k := range edgeRows {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return strings.Join(keys[i][:], ",") < strings.Join(keys[j][:], ",") })
	for _, k := range keys {
		query := fmt.Sprintf(`UNWIND $rows AS row
MATCH (a:%s {id: row.from})
MATCH (b:%s {id: row.to})
MERGE (a)-[r:%s]->(b)
ON CREATE SET r.created_at = $now
SET r += row.props, r.updated_at = $now`, k[0], k[2], k[1])
		if err := runAndConsume(ctx, tx, query, map[string]any{"rows": edgeRows[k], "now": ts}); err != nil {
			return err
		}
	}
	return nil
}

// endpointLabels maps every edge endpoint id to one whitelisted label of its
// node (Concept first), so the edge statements can use the id index. A
// missing endpoint fails the write rather than silently dropping the edge.
func endpointLabels(ctx context.Context, tx neo4j.ManagedTransaction, edges []graph.EdgeWrite) (map[string]string, error) {
	var ids []string
	for _, e := range edges {
		ids = append(ids, e.FromID, e.ToID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	res, err := tx.Run(ctx, nodeLabelsQuery, map[string]any{"ids": ids})
	if err != nil {
		return nil, err
	}
	records, err := res.Collect(ctx)
	if err != nil {
		return nil, err
	}
	labelOf := map[string]string{}
	for _, rec := range records {
		id, _, _ := neo4j.GetRecordValue[string](rec, "id")
		labels, _, _ := neo4j.GetRecordValue[[]any](rec, "labels")
		for _, whitelisted := range graph.NodeLabels {
			if slices.Contains(labels, any(whitelisted)) {
				labelOf[id] = whitelisted
				break
			}
		}
	}
	var missing int
	for _, id := range ids {
		if labelOf[id] == "" {
			missing++
		}
	}
	if missing > 0 {
		return nil, fmt.Errorf("%d edge endpoint(s) not found in the graph", missing)
	}
	return labelOf, nil
}

func runAndConsume(ctx context.Context, tx neo4j.ManagedTransaction, query string, params map[string]any) error {
	res, err := tx.Run(ctx, query, params)
	if err != nil {
		return err
	}
	_, err = res.Consume(ctx)
	return err
}

// propsParam copies the properties the caller may set: id and the store's
// own timestamps are dropped; times become epoch millis like every other
// timestamp in the graph.
func propsParam(props map[string]any) map[string]any {
	out := make(map[string]any, len(props))
	for k, v := range props {
		switch k {
		case "id", "created_at", "updated_at":
			continue
		}
		if t, ok := v.(time.Time); ok {
			v = graph.Timestamp(t)
		}
		out[k] = v
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
