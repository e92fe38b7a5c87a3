// Command resolve-concepts is the SQS-triggered Lambda that turns captured
// concepts into graph nodes (through the write service and its ingress
// guard) and queues enrichment for concepts without useful detail.
//
// Environment: MEMGRAPH_URI (and MEMGRAPH_USER, MEMGRAPH_PASSWORD,
// GRAPH_DATABASE, GRAPH_DIALECT; unset means an in-memory seeded graph, for
// local invokes only), ENRICHMENT_QUEUE_URL (unset disables enrichment
// requests), ENRICHMENT_FRESHNESS_DAYS (default 30). AWS_ENDPOINT_URL_SQS
// overrides the SQS endpoint.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"regintel/shared/graph"
	"regintel/shared/graph/bolt"
	"regintel/shared/graph/memory"
	"regintel/shared/graph/write"
	"regintel/shared/queue"
	"regintel/shared/queue/sqs"
	"regintel/shared/resolver"
)

func main() {
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stdout, nil)))
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
	getenv := os.Getenv
	var store graph.ConceptStore
	if getenv("MEMGRAPH_URI") != "" {
		cfg, err := bolt.ConfigFromEnv()
		if err != nil {
			return nil, nil, err
		}
		// Opened once per Lambda container and reused across invocations.
		bs, err := bolt.Open(ctx, cfg)
		if err != nil {
			return nil, nil, err
		}
		store = bs
	} else {
		slog.Warn("MEMGRAPH_URI not set: using an in-memory graph (local invokes only)")
		ms, err := memory.NewSeeded(time.Now())
		if err != nil {
			return nil, nil, err
		}
		store = ms
	}

	var enrich queue.Publisher
	if url := getenv("ENRICHMENT_QUEUE_URL"); url != "" {
		client, err := sqs.NewClient(ctx, "")
		if err != nil {
			return nil, nil, err
		}
		enrich = sqs.NewPublisher(client, url)
	} else {
		slog.Warn("ENRICHMENT_QUEUE_URL not set: enrichment requests are disabled")
	}

	freshness := resolver.DefaultFreshness
	if v := getenv("ENRICHMENT_FRESHNESS_DAYS"); v != "" {
		days, err := strconv.Atoi(v)
		if err != nil || days <= 0 {
			return nil, nil, fmt.Errorf("ENRICHMENT_FRESHNESS_DAYS=%q: want a positive number of days", v)
		}
		freshness = time.Duration(days) * 24 * time.Hour
	}
	return resolver.New(write.NewService(store), enrich, resolver.WithFreshness(freshness)), store, nil
}
