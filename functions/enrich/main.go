// Command enrich is the SQS-triggered Lambda that enriches concepts from
// official sources (shared/enrich): one job per enrichment.requested record,
// partial batch failures reported so failing jobs end in the dead-letter
// queue.
//
// Environment: MEMGRAPH_URI (MEMGRAPH_SECRET_ARN or MEMGRAPH_USER /
// MEMGRAPH_PASSWORD, GRAPH_DATABASE, GRAPH_DIALECT; unset means an
// in-memory seeded graph, for local invokes only); LLM_PROVIDER (openai or
// openai-chat), LLM_MODEL, OPENAI_BASE_URL, and the key from
// OPENAI_SECRET_ARN (field apiKey) or OPENAI_API_KEY;
// ENRICHMENT_FRESHNESS_DAYS (30).
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"regintel/shared/app"
	"regintel/shared/enrich"
	"regintel/shared/graph"
)

func main() {
	h, _, err := build(context.Background())
	if err != nil {
		slog.Error("enrich: start", "error", err)
		os.Exit(1)
	}
	lambda.Start(h.HandleSQS)
}

// build wires the handler from the environment; it also returns the graph
// store so tests can look at it.
func build(ctx context.Context) (*enrich.Handler, graph.ConceptStore, error) {
	cfg, log, store, err := app.QueueFunction(ctx)
	if err != nil {
		return nil, nil, err
	}
	provider, err := app.NewProvider(ctx, cfg, log)
	if err != nil {
		return nil, nil, err
	}
	h, err := app.NewEnricher(cfg, store, provider, log)
	return h, store, err
}
