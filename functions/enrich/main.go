// Command enrich is the SQS-triggered Lambda that enriches concepts from
// official sources (shared/enrich): one job per enrichment.requested record,
// partial batch failures reported so failing jobs end in the dead-letter
// queue.
//
// Environment: MEMGRAPH_URI (and MEMGRAPH_USER, MEMGRAPH_PASSWORD or
// MEMGRAPH_SECRET_ARN, GRAPH_DATABASE, GRAPH_DIALECT; unset means an
// in-memory seeded graph, for local invokes only); LLM_PROVIDER (openai,
// the default, or openai-chat), LLM_MODEL, OPENAI_BASE_URL, and the key from
// OPENAI_SECRET_ARN (field apiKey) or OPENAI_API_KEY;
// ENRICHMENT_FRESHNESS_DAYS (default 30).
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"regintel/shared/enrich"
	"regintel/shared/fetch"
	"regintel/shared/graph"
	"regintel/shared/graph/bolt"
	"regintel/shared/graph/memory"
	"regintel/shared/graph/write"
	"regintel/shared/llm"
	"regintel/shared/llm/openai"
	"regintel/shared/secrets"
	"regintel/shared/sources"
)

func main() {
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stdout, nil)))
	h, _, err := build(context.Background(), os.Getenv)
	if err != nil {
		slog.Error("enrich: start", "error", err)
		os.Exit(1)
	}
	lambda.Start(h.HandleSQS)
}

// build wires the handler from the environment; it also returns the graph
// store so tests can look at it.
func build(ctx context.Context, getenv func(string) string) (*enrich.Handler, graph.ConceptStore, error) {
	store, err := openGraph(ctx, getenv)
	if err != nil {
		return nil, nil, err
	}
	provider, model, err := newProvider(ctx, getenv)
	if err != nil {
		return nil, nil, err
	}
	catalog, err := sources.New(sources.Options{})
	if err != nil {
		return nil, nil, err
	}
	freshness := 30 * 24 * time.Hour
	if v := getenv("ENRICHMENT_FRESHNESS_DAYS"); v != "" {
		days, err := strconv.Atoi(v)
		if err != nil || days <= 0 {
			return nil, nil, fmt.Errorf("ENRICHMENT_FRESHNESS_DAYS=%q: want a positive number of days", v)
		}
		freshness = time.Duration(days) * 24 * time.Hour
	}
	h, err := enrich.New(enrich.Deps{
		Writes:    write.NewService(store),
		Sources:   catalog,
		Fetcher:   fetch.New(fetch.Config{Allowlist: catalog}),
		Extractor: enrich.Readable(0),
		Provider:  provider,
	}, enrich.Config{Model: model, Freshness: freshness})
	return h, store, err
}

func openGraph(ctx context.Context, getenv func(string) string) (graph.ConceptStore, error) {
	if getenv("MEMGRAPH_URI") == "" {
		slog.Warn("MEMGRAPH_URI not set: using an in-memory graph (local invokes only)")
		return memory.NewSeeded(time.Now())
	}
	cfg, err := bolt.ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	if arn := getenv("MEMGRAPH_SECRET_ARN"); arn != "" {
		client, err := secrets.NewClient(ctx)
		if err != nil {
			return nil, err
		}
		if cfg.User, err = secrets.String(ctx, client, arn, "username"); err != nil {
			return nil, err
		}
		if cfg.Password, err = secrets.String(ctx, client, arn, "password"); err != nil {
			return nil, err
		}
	}
	// Opened once per Lambda container and reused across invocations.
	return bolt.Open(ctx, cfg)
}

func newProvider(ctx context.Context, getenv func(string) string) (llm.Provider, string, error) {
	model := getenv("LLM_MODEL")
	if model == "" {
		model = "gpt-4.1-mini"
	}
	key := getenv("OPENAI_API_KEY")
	if arn := getenv("OPENAI_SECRET_ARN"); arn != "" {
		client, err := secrets.NewClient(ctx)
		if err != nil {
			return nil, "", err
		}
		if key, err = secrets.String(ctx, client, arn, "apiKey"); err != nil {
			return nil, "", err
		}
	}
	baseURL := getenv("OPENAI_BASE_URL")
	cfg := openai.Config{APIKey: key, BaseURL: baseURL, Model: model, MaxRetries: 2}
	switch getenv("LLM_PROVIDER") {
	case "", "openai":
		if key == "" && baseURL == "" {
			return nil, "", errors.New("the enrichment LLM needs OPENAI_API_KEY or OPENAI_SECRET_ARN (or OPENAI_BASE_URL for a keyless server)")
		}
		return openai.NewResponses(cfg), model, nil
	case "openai-chat":
		return openai.NewChat(cfg), model, nil
	default:
		return nil, "", fmt.Errorf("LLM_PROVIDER=%q: the enrichment function needs a tool-calling provider (openai or openai-chat)", getenv("LLM_PROVIDER"))
	}
}
