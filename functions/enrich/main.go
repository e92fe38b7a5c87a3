// Command enrich is the SQS-triggered Lambda that enriches concepts from
// official sources (shared/enrich): one job per enrichment.requested record,
// partial batch failures reported so failing jobs end in the dead-letter
// queue.
//
// Settings: the graph (MEMGRAPH_URI and the rest; unset means an in-memory
// seeded graph, for local invokes only), the model (LLM_PROVIDER openai or
// openai-chat, LLM_MODEL, OPENAI_BASE_URL, the key from OPENAI_SECRET_ARN or
// OPENAI_API_KEY) and ENRICHMENT_FRESHNESS_DAYS; see shared/config.
package main

import (
	"context"
	"log/slog"

	"github.com/aws/aws-lambda-go/lambda"

	"regintel/shared/app"
	"regintel/shared/app/enrichment"
	"regintel/shared/config"
	"regintel/shared/enrich"
	"regintel/shared/entrypoint"
	"regintel/shared/graph"
	"regintel/shared/tracing"
)

func main() { entrypoint.Main("enrich", run) }

func run(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	defer app.StartTracing(ctx, cfg.Tracing, "enrich", log)()
	h, _, err := build(ctx, cfg, log)
	if err != nil {
		return err
	}
	lambda.Start(tracing.FlushAfter(h.HandleSQS))
	return nil
}

// build wires the handler; it also returns the graph store so tests can
// look at it.
func build(ctx context.Context, cfg config.Config, log *slog.Logger) (*enrich.Handler, graph.ConceptStore, error) {
	store, _, err := app.OpenGraph(ctx, cfg.Graph, log)
	if err != nil {
		return nil, nil, err
	}
	provider, err := app.NewProvider(ctx, cfg.LLM, log)
	if err != nil {
		return nil, nil, err
	}
	h, err := enrichment.NewHandler(cfg, store, provider, log)
	return h, store, err
}
