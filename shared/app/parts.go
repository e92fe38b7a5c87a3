package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"regintel/shared/config"
	"regintel/shared/graph"
	"regintel/shared/graph/bolt"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/graph/write"
	"regintel/shared/llm"
	"regintel/shared/llm/offline"
	"regintel/shared/llm/openai"
	"regintel/shared/metrics"
	"regintel/shared/pgpool"
	"regintel/shared/queue"
	"regintel/shared/queue/sqs"
	"regintel/shared/quota"
	"regintel/shared/resolver"
	"regintel/shared/secrets"
)

// The parts below are shared by the chat function, `make dev` and the
// queue functions, so every process opens the graph, the model and the
// handlers the same way.

// OpenGraph opens Memgraph over Bolt (credentials from MEMGRAPH_SECRET_ARN
// when set), or the seeded in-memory graph when MEMGRAPH_URI is unset. The
// returned func closes it.
func OpenGraph(ctx context.Context, cfg config.Graph, log *slog.Logger) (graph.Store, func(), error) {
	if cfg.URI == "" {
		g, err := graphmem.NewSeeded(time.Now())
		if err != nil {
			return nil, nil, err
		}
		log.Info("graph: in-memory, seeded with the IE/UK/EU dataset (set MEMGRAPH_URI for Memgraph)")
		return g, func() {}, nil
	}
	bcfg, err := GraphConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	if cfg.SecretARN != "" {
		client, err := secrets.NewClient(ctx)
		if err != nil {
			return nil, nil, err
		}
		if bcfg.User, err = secrets.String(ctx, client, cfg.SecretARN, "username"); err != nil {
			return nil, nil, err
		}
		if bcfg.Password, err = secrets.String(ctx, client, cfg.SecretARN, "password"); err != nil {
			return nil, nil, err
		}
	}
	// Opened once per Lambda container and reused across invocations. It
	// connects on first use, so a cold start does not wait for the graph.
	store, err := bolt.Open(ctx, bcfg)
	if err != nil {
		return nil, nil, fmt.Errorf("graph: %w", err)
	}
	dialect := string(bcfg.Dialect)
	if dialect == "" {
		dialect = "auto"
	}
	log.Info("graph: bolt, connects on first use", "dialect", dialect)
	return store, func() { _ = store.Close(context.Background()) }, nil
}

// NewProvider returns the configured model: OpenAI Responses, an
// OpenAI-compatible Chat Completions server, or the offline model. The key
// comes from OPENAI_SECRET_ARN (field apiKey) when set.
func NewProvider(ctx context.Context, cfg config.LLM, log *slog.Logger) (llm.Provider, error) {
	if cfg.Provider == "offline" {
		log.Warn("llm: offline deterministic model (no API key): answers are canned, concept capture uses a built-in lexicon", "model", offline.ModelName)
		return offline.New(offline.Config{WordDelay: cfg.OfflineWordDelay}), nil
	}
	key := cfg.APIKey
	if cfg.SecretARN != "" {
		client, err := secrets.NewClient(ctx)
		if err != nil {
			return nil, err
		}
		if key, err = secrets.String(ctx, client, cfg.SecretARN, "apiKey"); err != nil {
			return nil, err
		}
	}
	ocfg := openai.Config{APIKey: key, BaseURL: cfg.BaseURL, Model: cfg.Model, Logger: log, PromptCacheRetention: cfg.PromptCacheRetention}
	if cfg.Provider == "openai-chat" {
		log.Info("llm: openai-compatible chat completions", "model", cfg.Model, "custom_base_url", cfg.BaseURL != "")
		return openai.NewChat(ocfg), nil
	}
	log.Info("llm: openai responses", "model", cfg.Model, "custom_base_url", cfg.BaseURL != "")
	return openai.NewResponses(ocfg), nil
}

// NewResolver is the concept-resolution handler; enrichment is where its
// enrichment jobs go (SQS when ENRICHMENT_QUEUE_URL is set; nil: none).
func NewResolver(ctx context.Context, cfg config.Config, store graph.ConceptStore, enrichment queue.Publisher, log *slog.Logger) (*resolver.Handler, error) {
	if cfg.Queues.EnrichmentURL != "" {
		client, err := sqs.NewClient(ctx, "") // AWS_ENDPOINT_URL_SQS overrides the endpoint (e.g. a local SQS)
		if err != nil {
			return nil, err
		}
		enrichment = sqs.NewPublisher(client, cfg.Queues.EnrichmentURL)
		log.Info("enrichment queue: sqs")
	} else if enrichment == nil {
		log.Info("enrichment: off (no ENRICHMENT_QUEUE_URL, and the offline model cannot extract facts): concepts without detail are not enriched")
	}
	writes := write.NewService(store, write.WithLogger(log))
	counts, err := quotaStore(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	limits := quota.Limits{NewNodes: cfg.Chat.NewNodesPerTenantDay, EnrichmentJobs: cfg.Chat.EnrichmentJobsPerTenantDay}
	return resolver.New(writes, enrichment, resolver.WithFreshness(cfg.Chat.Freshness), resolver.WithLogger(log),
		resolver.WithQuota(quota.New(counts, limits)),
		resolver.WithMetrics(metrics.ForFunction(cfg.Log.Format, "resolve-concepts", log))), nil
}

// quotaStore keeps the per-tenant daily counts in Postgres when a database
// is configured, so every resolver instance shares them; else in this
// process (a bound per instance).
func quotaStore(ctx context.Context, cfg config.Config, log *slog.Logger) (quota.Store, error) {
	if cfg.Postgres.URL == "" {
		log.Info("per-tenant graph quota: counted in this process (set DATABASE_URL to share the count)",
			"new_nodes", cfg.Chat.NewNodesPerTenantDay, "enrichment_jobs", cfg.Chat.EnrichmentJobsPerTenantDay)
		return quota.NewMemory(), nil
	}
	pool, err := pgpool.NewPool(ctx, PostgresConfig(cfg.Postgres))
	if err != nil {
		return nil, fmt.Errorf("postgres (graph quota): %w", err)
	}
	log.Info("per-tenant graph quota: postgres", "new_nodes", cfg.Chat.NewNodesPerTenantDay, "enrichment_jobs", cfg.Chat.EnrichmentJobsPerTenantDay)
	return quota.NewPostgres(pool), nil
}

// InProcessEnrichment starts enrichment inside this process and returns
// where its jobs go and how to stop it (package app/enrichment provides one).
type InProcessEnrichment func(cfg config.Config, store graph.ConceptStore, provider llm.Provider, log *slog.Logger) (queue.Publisher, func(), error)

// WithInProcessEnrichment lets Build run enrichment in process when a real
// model is configured and ENRICHMENT_QUEUE_URL is unset (`make dev` with a
// key). Without it such jobs are not enriched, and the chat function does
// not link the fetcher, the PDF reader or the charset tables.
func WithInProcessEnrichment(start InProcessEnrichment) Option {
	return func(o *options) { o.enrichment = start }
}

// Option changes how Build wires the backend.
type Option func(*options)

type options struct {
	enrichment InProcessEnrichment
	migrate    Migrate
}

// Migrate brings the database schema up to date (dbsetup.ApplyMigrations).
type Migrate func(ctx context.Context, pool *pgxpool.Pool) error

// WithMigrations makes Build migrate the database at a local start (`make
// dev`). The chat function does not take it, so it does not link the
// migrations tool; on an unmigrated database it says so instead.
func WithMigrations(migrate Migrate) Option {
	return func(o *options) { o.migrate = migrate }
}

// enrichmentQueue runs enrichment in this process when a real model is
// configured and Build was given a way to (`make dev` with a key).
func (a *App) enrichmentQueue(cfg config.Config, store graph.ConceptStore, provider llm.Provider, start InProcessEnrichment, log *slog.Logger) (queue.Publisher, error) {
	if cfg.Queues.EnrichmentURL != "" || provider.Name() == "offline" {
		return nil, nil
	}
	if start == nil {
		log.Info("enrichment: off in this binary (no ENRICHMENT_QUEUE_URL; `make dev` runs it in process)")
		return nil, nil
	}
	pub, stop, err := start(cfg, store, provider, log)
	if err != nil {
		return nil, err
	}
	a.closers = append(a.closers, stop)
	log.Info("enrichment queue: in-process (official sources only)")
	return pub, nil
}
