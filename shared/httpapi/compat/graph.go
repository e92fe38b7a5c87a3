package compat

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"regintel/shared/graph"
	"regintel/shared/httpapi/reply"
)

// MaxLookupIDs caps the ids of one GET /api/graph.
const MaxLookupIDs = 100

// GraphNode is a node as the reference's graph views read it.
type GraphNode struct {
	ID         string         `json:"id"`
	Label      string         `json:"label"`
	Type       string         `json:"type"`
	Properties map[string]any `json:"properties"`
}

// GraphEdge is an edge as the reference's graph page reads it.
type GraphEdge struct {
	Source     string         `json:"source"`
	Target     string         `json:"target"`
	Type       string         `json:"type"`
	Properties map[string]any `json:"properties"`
}

func graphNode(n graph.Node) GraphNode {
	s := nodeSummary(n)
	props := map[string]any{}
	for k, v := range n.Properties {
		props[k] = v
	}
	if n.Jurisdiction != "" {
		props["jurisdiction"] = n.Jurisdiction
	}
	if n.Definition != "" {
		props["definition"] = n.Definition
	}
	return GraphNode{ID: n.ID, Label: s.Label, Type: s.Type, Properties: props}
}

func graphEdge(e graph.Edge) GraphEdge {
	props := e.Properties
	if props == nil {
		props = map[string]any{}
	}
	return GraphEdge{Source: e.FromID, Target: e.ToID, Type: e.Type, Properties: props}
}

// GraphNodes serves GET /api/graph?ids=a,b: {"type": "node_lookup",
// "nodes": [{id, label, type, properties}]} in the order the graph returns
// them; unknown ids are absent. Ids are ours (DOMAIN:JURISDICTION:KIND).
func (a *Adapter) GraphNodes(w http.ResponseWriter, r *http.Request) error {
	var ids []string
	for _, id := range strings.Split(r.URL.Query().Get("ids"), ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return reply.InvalidRequest.With("ids is required: the graph page's snapshot comes from /api/graph/stream")
	}
	if len(ids) > MaxLookupIDs {
		return reply.InvalidRequest.With(fmt.Sprintf("at most %d ids", MaxLookupIDs))
	}
	ctx, cancel := context.WithTimeout(r.Context(), graphTimeout)
	defer cancel()
	nodes, err := a.d.Graph.GetNodesByIDs(ctx, ids)
	if err != nil {
		a.d.Log.Error("graph node lookup failed", "request_id", a.d.Host.RequestID(r.Context()), "ids", len(ids), "err", err)
		return reply.GraphUnavailable
	}
	out := make([]GraphNode, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, graphNode(n))
	}
	writeJSON(w, http.StatusOK, map[string]any{"type": "node_lookup", "nodes": out})
	return nil
}

// GraphChanges is one patch of our graph feed, in our own types.
type GraphChanges struct {
	AddedNodes, UpdatedNodes []graph.Node
	AddedEdges, UpdatedEdges []graph.Edge
	Snapshot, HasMore        bool
	At                       time.Time
}

type graphPatch struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Nodes     struct {
		Added   []GraphNode `json:"added"`
		Updated []GraphNode `json:"updated"`
		Removed []string    `json:"removed"`
	} `json:"nodes"`
	Edges struct {
		Added   []GraphEdge `json:"added"`
		Updated []GraphEdge `json:"updated"`
		Removed []GraphEdge `json:"removed"`
	} `json:"edges"`
	Meta struct {
		TotalChanges int  `json:"totalChanges"`
		NodeChanges  int  `json:"nodeChanges"`
		EdgeChanges  int  `json:"edgeChanges"`
		Truncated    bool `json:"truncated"`
		Snapshot     bool `json:"snapshot"`
	} `json:"meta"`
}

// GraphPatchData is c as the data of an unnamed graph_patch frame of GET
// /api/graph/stream, in the reference's patch shape (nodes with label and
// type, edges with source and target). Nothing is ever removed today.
func GraphPatchData(c GraphChanges) ([]byte, error) {
	var p graphPatch
	p.Type, p.Timestamp = "graph_patch", c.At
	p.Nodes.Added, p.Nodes.Updated, p.Nodes.Removed = mapAll(c.AddedNodes, graphNode), mapAll(c.UpdatedNodes, graphNode), []string{}
	p.Edges.Added, p.Edges.Updated, p.Edges.Removed = mapAll(c.AddedEdges, graphEdge), mapAll(c.UpdatedEdges, graphEdge), []GraphEdge{}
	p.Meta.NodeChanges = len(c.AddedNodes) + len(c.UpdatedNodes)
	p.Meta.EdgeChanges = len(c.AddedEdges) + len(c.UpdatedEdges)
	p.Meta.TotalChanges = p.Meta.NodeChanges + p.Meta.EdgeChanges
	p.Meta.Truncated, p.Meta.Snapshot = c.HasMore, c.Snapshot
	return json.Marshal(p)
}

func mapAll[T, U any](in []T, f func(T) U) []U {
	out := make([]U, 0, len(in))
	for _, v := range in {
		out = append(out, f(v))
	}
	return out
}
