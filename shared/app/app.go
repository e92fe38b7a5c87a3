// Package app is the composition root: it turns a config.Config into the
// running parts (store, graph, model, queues, auth) and the HTTP handler.
// The chat function and `make dev` both use it, so local and Lambda runs
// differ only in configuration.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"regintel/shared/auth"
	"regintel/shared/chat"
	"regintel/shared/config"
	"regintel/shared/conversation"
	convmem "regintel/shared/conversation/memory"
	convpg "regintel/shared/conversation/postgres"
	"regintel/shared/graph"
	"regintel/shared/graph/textindex"
	"regintel/shared/httpapi"
	"regintel/shared/llm"
	"regintel/shared/metrics"
	"regintel/shared/pgpool"
	"regintel/shared/prompt"
	"regintel/shared/queue"
	"regintel/shared/queue/sqs"
)

// App is a wired backend.
type App struct {
	Handler http.Handler
	Engine  *chat.Engine
	closers []func()
	// readiness is what GET /readyz checks.
	readiness []httpapi.ReadinessCheck
}

// Close releases pools and drivers and waits for in-process queue work.
func (a *App) Close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
}

// Build wires the backend from cfg. Each part logs which backend it uses.
func Build(ctx context.Context, cfg config.Config, log *slog.Logger, opts ...Option) (*App, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	a := &App{}
	fail := func(err error) (*App, error) { a.Close(); return nil, err }

	// Refuse a bad auth setup before opening anything.
	if err := cfg.CheckAuth(); err != nil {
		return nil, err
	}
	store, sharing, err := a.conversationStore(ctx, cfg, o.migrate, log)
	if err != nil {
		return fail(err)
	}
	graphStore, closeGraph, err := OpenGraph(ctx, cfg.Graph, log)
	if err != nil {
		return fail(err)
	}
	a.closers = append(a.closers, closeGraph)
	words := a.followTextIndex(ctx, graphStore, cfg.Graph.URI == "", log)
	provider, err := NewProvider(ctx, cfg.LLM, log)
	if err != nil {
		return fail(err)
	}
	concepts, err := a.conceptQueue(ctx, cfg, graphStore, provider, o.enrichment, log)
	if err != nil {
		return fail(err)
	}
	authenticator, err := newAuthenticator(ctx, cfg.Auth, log)
	if err != nil {
		return fail(err)
	}
	// A bad sheet stops start-up with its file and line.
	sheet, err := prompt.LoadSheet(cfg.Chat.PromptSheetsDir)
	if err != nil {
		return fail(err)
	}
	table, err := turnPrices(cfg)
	if err != nil {
		return fail(err)
	}
	a.Engine = chat.New(chat.Deps{Store: store, Graph: graphStore, Provider: provider, Concepts: concepts, Log: log, Sheet: sheet, Words: words,
		Observe: turnObserver(metrics.ForFunction(cfg.Log.Format, "chat", log))},
		chat.Config{Model: cfg.LLM.Model, HistoryTurns: cfg.Chat.HistoryTurns, MaxActiveNodes: cfg.Chat.MaxActiveNodes,
			TokenBudget: cfg.Chat.TokenBudget, ContextRequestTTL: cfg.Chat.ContextRequestTTL, PIIRedaction: cfg.Chat.PIIRedaction,
			Tools: cfg.LLM.Tools, MaxModelCalls: cfg.LLM.MaxCalls, DailyTokenLimit: cfg.Chat.DailyTokenLimit,
			DailyCostLimitUSD: cfg.Chat.DailyCostLimitUSD, CapOnError: cfg.Chat.CapOnError, Prices: table,
			PromptCacheSecret: []byte(cfg.Chat.PromptCacheSecret)})
	a.Handler = httpapi.New(httpapi.Options{
		Auth: authenticator, Engine: a.Engine, Conversations: store,
		Graph: graphStore, GraphChanges: graphStore, DemoPage: cfg.DemoPage, Readiness: a.readiness,
		CompatAPI: cfg.CompatAPI, Sharing: sharing, CORSOrigins: cfg.Chat.CORSOrigins, Log: log,
		MaxStreamFollowers: cfg.Chat.MaxStreamFollowers,
	})
	return a, nil
}

// textIndexRefresh is how often the text index reads the graph's change
// feed; a concept added to the graph is matched by its words from then on
// (by its label and aliases at once).
const textIndexRefresh = time.Minute

// followTextIndex builds the index of the graph's official text that
// grounding matches a question's words against, and keeps it fresh from
// the change feed in the background, never on a turn's path. An
// in-process graph is read at once; a remote one in the background, so a
// graph that is down does not hold up start-up (questions match by label
// and alias until the index has read it).
func (a *App) followTextIndex(ctx context.Context, feed graph.ChangeReader, inProcess bool, log *slog.Logger) *textindex.Index {
	words := textindex.New()
	report := func(err error) { log.Warn("text index: reading the graph's changes failed", "err", err) }
	if inProcess {
		if err := words.Refresh(ctx, feed); err != nil {
			report(err)
		}
	}
	follow, stop := context.WithCancel(context.WithoutCancel(ctx))
	go words.Follow(follow, feed, textIndexRefresh, !inProcess, report)
	a.closers = append(a.closers, stop)
	return words
}

// conversationStore opens the conversation store with the sharing settings
// kept beside it.
func (a *App) conversationStore(ctx context.Context, cfg config.Config, migrate Migrate, log *slog.Logger) (conversation.Store, conversation.SharingStore, error) {
	if cfg.Postgres.URL == "" {
		log.Info("conversation store: embedded in-memory (set DATABASE_URL for Postgres)")
		s := convmem.New()
		return s, convmem.NewSharing(s), nil
	}
	pgCfg := PostgresConfig(cfg.Postgres)
	pool, err := pgpool.NewPool(ctx, pgCfg)
	if err != nil {
		return nil, nil, fmt.Errorf("postgres: %w", err)
	}
	a.closers = append(a.closers, pool.Close)
	a.readiness = append(a.readiness, httpapi.ReadinessCheck{Name: "database", Check: databaseReady(pool)})
	// On Lambda the migrate function migrates at deploy, so a cold start
	// never runs DDL; locally `make dev` migrates at start.
	switch {
	case cfg.OnLambda:
	case migrate != nil:
		if err := migrate(ctx, pool); err != nil {
			return nil, nil, fmt.Errorf("postgres migrations: %w", err)
		}
	default:
		warnIfNotMigrated(ctx, pool, log)
	}
	log.Info("conversation store: postgres", "iam_auth", pgCfg.IAMAuth)
	s := convpg.New(pool)
	return s, convpg.NewSharing(s), nil
}

func (a *App) conceptQueue(ctx context.Context, cfg config.Config, graphStore graph.ConceptStore, provider llm.Provider, enrichWith InProcessEnrichment, log *slog.Logger) (queue.Publisher, error) {
	if cfg.Queues.ConceptsURL != "" {
		client, err := sqs.NewClient(ctx, "") // AWS_ENDPOINT_URL_SQS overrides the endpoint (e.g. a local SQS)
		if err != nil {
			return nil, err
		}
		log.Info("concept queue: sqs")
		return sqs.NewPublisher(client, cfg.Queues.ConceptsURL), nil
	}
	enrichment, err := a.enrichmentQueue(cfg, graphStore, provider, enrichWith, log)
	if err != nil {
		return nil, err
	}
	pub, closeFn, err := inProcessConceptQueue(ctx, cfg, graphStore, enrichment, log)
	if err != nil {
		return nil, err
	}
	a.closers = append(a.closers, closeFn)
	log.Info("concept queue: in-process (resolver runs in this process; set CONCEPTS_QUEUE_URL for SQS)")
	return pub, nil
}

func newAuthenticator(ctx context.Context, cfg config.Auth, log *slog.Logger) (auth.Authenticator, error) {
	if cfg.Mode == "dev" {
		log.Warn("auth: dev mode trusts X-Tenant-Id / X-User-Id headers; local use only")
		return auth.Dev{DefaultTenant: cfg.DevTenant, DefaultUser: cfg.DevUser}, nil
	}
	v, err := auth.NewJWT(ctx, auth.JWTConfig{
		JWKSURL: cfg.JWKSURL, HS256Secret: []byte(cfg.HS256Secret),
		Issuer: cfg.Issuer, Audience: cfg.Audience, TenantClaim: cfg.TenantClaim, UserClaim: cfg.UserClaim, Header: cfg.Header,
		IATLeeway: cfg.IATLeeway,
	})
	if err != nil {
		return nil, err
	}
	log.Info("auth: jwt", "jwks", cfg.JWKSURL != "", "tenant_claim", cfg.TenantClaim, "header", cfg.Header)
	return v, nil
}
