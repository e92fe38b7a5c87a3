// Command resolve-concepts is the SQS-triggered Lambda that turns captured
// concepts into graph nodes (through the write service and its ingress
// guard) and queues enrichment for concepts without useful detail.
//
// Environment: MEMGRAPH_URI (MEMGRAPH_SECRET_ARN or MEMGRAPH_USER /
// MEMGRAPH_PASSWORD, GRAPH_DATABASE, GRAPH_DIALECT; unset means an
// in-memory seeded graph, for local invokes only), ENRICHMENT_QUEUE_URL
// (unset disables enrichment requests), ENRICHMENT_FRESHNESS_DAYS (30).
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"regintel/shared/app"
	"regintel/shared/graph"
	"regintel/shared/resolver"
)

func main() {
	h, _, err := build(context.Background())
	if err != nil {
		slog.Error("resolve-concepts: start", "error", err)
		os.Exit(1)
	}
	lambda.Start(h.HandleSQS)
}

// build wires the handler from the environment; it also returns the graph
// store so tests can look at what was written.
func build(ctx context.Context) (*resolver.Handler, graph.ConceptStore, error) {
	cfg, log, store, err := app.QueueFunction(ctx)
	if err != nil {
		return nil, nil, err
	}
	h, err := app.NewResolver(ctx, cfg, store, nil, log)
	return h, store, err
}
