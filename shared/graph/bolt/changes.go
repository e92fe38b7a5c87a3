package bolt

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"regintel/shared/graph"
)

var _ graph.ChangeReader = (*Store)(nil)

// changedNodesQuery and changedEdgesQuery read the next page of the change
// order. Labels and relationship types are parameters compared against
// labels(n) and type(r), never spliced into the query. Items without
// updated_at (written outside the write service) are not reported.
const changedNodesQuery = `
MATCH (n)
WHERE n.updated_at IS NOT NULL
  AND (n.updated_at > $after_ts OR (n.updated_at = $after_ts AND 'n:' + n.id > $after_key))
  AND ($until = 0 OR n.updated_at <= $until)
  AND any(l IN labels(n) WHERE l IN $labels)
  AND (size($jurisdictions) = 0 OR n.jurisdiction IN $jurisdictions)
RETURN n
ORDER BY n.updated_at, n.id
LIMIT $limit`

const changedEdgesQuery = `
MATCH (a)-[r]->(b)
WHERE r.updated_at IS NOT NULL AND type(r) IN $types
  AND any(l IN labels(a) WHERE l IN $labels) AND any(l IN labels(b) WHERE l IN $labels)
  AND (size($jurisdictions) = 0 OR (a.jurisdiction IN $jurisdictions AND b.jurisdiction IN $jurisdictions))
  AND ($until = 0 OR r.updated_at <= $until)
WITH a, r, b, 'e:' + a.id + '|' + type(r) + '|' + b.id AS key
WHERE r.updated_at > $after_ts OR (r.updated_at = $after_ts AND key > $after_key)
RETURN a.id AS from, type(r) AS type, b.id AS to, properties(r) AS props, r.updated_at AS updated_at, key
ORDER BY r.updated_at, key
LIMIT $limit`

// Changes returns up to q.Limit nodes and edges changed after q.After in
// (updated_at, key) order (graph.ChangeReader): the first q.Limit of each
// kind, in one read transaction, merged in Go.
func (s *Store) Changes(ctx context.Context, q graph.ChangeQuery) ([]graph.Change, error) {
	if q.Limit <= 0 {
		return nil, errors.New("bolt graph: change query without a limit")
	}
	labels := graph.NodeLabels
	if len(q.Labels) > 0 {
		labels = slices.DeleteFunc(slices.Clone(q.Labels), func(l string) bool { return !graph.IsNodeLabel(l) })
		if len(labels) == 0 {
			return nil, nil
		}
	}
	params := map[string]any{
		"after_ts": q.After.UpdatedAt, "after_key": q.After.Key, "until": q.Until,
		"labels": labels, "jurisdictions": orEmpty(q.Jurisdictions), "types": graph.RelationshipTypes,
		"limit": int64(q.Limit),
	}
	sess := s.session(ctx, neo4j.AccessModeRead)
	defer sess.Close(ctx)
	out, err := sess.ExecuteRead(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		s.readTx.Add(1)
		nodes, err := collectChanges(ctx, tx, changedNodesQuery, params, nodeChange)
		if err != nil {
			return nil, err
		}
		edges, err := collectChanges(ctx, tx, changedEdgesQuery, params, edgeChange)
		if err != nil {
			return nil, err
		}
		return append(nodes, edges...), nil
	})
	if err != nil {
		return nil, fmt.Errorf("bolt graph: changes: %w", withContextErr(ctx, err))
	}
	changes := out.([]graph.Change)
	slices.SortFunc(changes, func(a, b graph.Change) int {
		return cmp.Or(cmp.Compare(a.Cursor.UpdatedAt, b.Cursor.UpdatedAt), strings.Compare(a.Cursor.Key, b.Cursor.Key))
	})
	if len(changes) > q.Limit {
		changes = changes[:q.Limit]
	}
	return changes, nil
}

// collectChanges runs one change query and turns each record into a change.
func collectChanges(ctx context.Context, tx neo4j.ManagedTransaction, query string, params map[string]any,
	toChange func(*neo4j.Record) (graph.Change, error)) ([]graph.Change, error) {
	res, err := tx.Run(ctx, query, params)
	if err != nil {
		return nil, err
	}
	records, err := res.Collect(ctx)
	if err != nil {
		return nil, err
	}
	var changes []graph.Change
	for _, rec := range records {
		c, err := toChange(rec)
		if err != nil {
			return nil, err
		}
		changes = append(changes, c)
	}
	return changes, nil
}

func nodeChange(rec *neo4j.Record) (graph.Change, error) {
	n, _, err := neo4j.GetRecordValue[neo4j.Node](rec, "n")
	if err != nil {
		return graph.Change{}, err
	}
	gn := toGraphNode(n)
	updated, _ := gn.Properties["updated_at"].(int64)
	created, _ := gn.Properties["created_at"].(int64)
	return graph.Change{Cursor: graph.ChangeCursor{UpdatedAt: updated, Key: graph.NodeChangeKey(gn.ID)}, CreatedAt: created, Node: &gn}, nil
}

func edgeChange(rec *neo4j.Record) (graph.Change, error) {
	from, _, err1 := neo4j.GetRecordValue[string](rec, "from")
	typ, _, err2 := neo4j.GetRecordValue[string](rec, "type")
	to, _, err3 := neo4j.GetRecordValue[string](rec, "to")
	key, _, err4 := neo4j.GetRecordValue[string](rec, "key")
	updated, _, err5 := neo4j.GetRecordValue[int64](rec, "updated_at")
	rawProps, _, err6 := neo4j.GetRecordValue[map[string]any](rec, "props")
	if err := errors.Join(err1, err2, err3, err4, err5, err6); err != nil {
		return graph.Change{}, err
	}
	props := make(map[string]any, len(rawProps))
	for k, v := range rawProps {
		props[k] = normalizeValue(v)
	}
	created, _ := props["created_at"].(int64)
	e := graph.Edge{FromID: from, Type: typ, ToID: to, Properties: props, UpdatedAt: graph.TimeFromTimestamp(updated)}
	return graph.Change{Cursor: graph.ChangeCursor{UpdatedAt: updated, Key: key}, CreatedAt: created, Edge: &e}, nil
}

func orEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}
