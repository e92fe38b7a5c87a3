// Command resolve-concepts is the SQS-triggered Lambda that turns captured
// concepts into graph nodes (through the write service and its ingress
// guard) and queues enrichment for concepts without useful detail.
//
// Settings: the graph (MEMGRAPH_URI and the rest; unset means an in-memory
// seeded graph, for local invokes only), ENRICHMENT_QUEUE_URL (unset
// disables enrichment requests) and ENRICHMENT_FRESHNESS_DAYS; see
// shared/config.
package main

import (
	"context"
	"log/slog"

	"github.com/aws/aws-lambda-go/lambda"

	"regintel/shared/app"
	"regintel/shared/config"
	"regintel/shared/entrypoint"
	"regintel/shared/graph"
	"regintel/shared/resolver"
	"regintel/shared/tracing"
)

func main() { entrypoint.Main("resolve-concepts", run) }

func run(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	defer app.StartTracing(ctx, cfg.Tracing, "resolve-concepts", log)()
	h, _, err := build(ctx, cfg, log)
	if err != nil {
		return err
	}
	lambda.Start(tracing.FlushAfter(h.HandleSQS))
	return nil
}

// build wires the handler; it also returns the graph store so tests can
// look at what was written.
func build(ctx context.Context, cfg config.Config, log *slog.Logger) (*resolver.Handler, graph.ConceptStore, error) {
	store, _, err := app.OpenGraph(ctx, cfg.Graph, log)
	if err != nil {
		return nil, nil, err
	}
	h, err := app.NewResolver(ctx, cfg, store, nil, log)
	return h, store, err
}
