// Package graphsetup makes the shared rules graph ready: its constraints
// and indexes, then the knowledge dataset the project ships, written
// through the guarded write service. Both steps are idempotent (schema
// statements that exist count as applied; every write MERGEs by id), so the
// deploy runs them again whenever the schema or the dataset changes.
package graphsetup

import (
	"context"
	"fmt"

	"regintel/shared/graph"
	"regintel/shared/graph/seeddata"
	"regintel/shared/graph/write"
)

// Outcome is what one run did, for the deploy's log.
type Outcome struct {
	SchemaApplied bool `json:"schemaApplied"`
	Concepts      int  `json:"concepts"`
	Written       int  `json:"written"`
}

// Store is what a run needs of the graph.
type Store interface {
	graph.ConceptStore
	graph.SchemaApplier
}

// Run applies the schema, then loads the shipped dataset.
func Run(ctx context.Context, store Store) (Outcome, error) {
	var out Outcome
	if err := store.ApplySchema(ctx); err != nil {
		return out, fmt.Errorf("graph schema: %w", err)
	}
	out.SchemaApplied = true
	ds, err := seeddata.Load()
	if err != nil {
		return out, err
	}
	out.Concepts = len(ds.Concepts)
	out.Written, err = Seed(ctx, write.NewService(store), ds)
	return out, err
}

// Seed loads ds through the guarded write service: concepts in one
// ResolveConcepts call, then detail nodes and edges in one Write. The
// dataset is curated, so any rejection is an error.
func Seed(ctx context.Context, svc *write.Service, ds seeddata.Dataset) (int, error) {
	res, err := svc.ResolveConcepts(ctx, ds.Concepts, graph.ProvenanceOfficial)
	if err != nil {
		return 0, fmt.Errorf("seed concepts: %w", err)
	}
	if len(res.Rejected) > 0 {
		return 0, fmt.Errorf("seed concepts: %d rejected, first: %v", len(res.Rejected), &res.Rejected[0])
	}
	written := len(res.Written)
	nodes, edges := ds.Writes()
	res, err = svc.Write(ctx, graph.MarkOfficial(nodes), edges)
	if err != nil {
		return written, fmt.Errorf("seed detail nodes: %w", err)
	}
	if len(res.Rejected) > 0 {
		return written, fmt.Errorf("seed detail nodes: %d rejected, first: %v", len(res.Rejected), &res.Rejected[0])
	}
	return written + len(res.Written), nil
}
