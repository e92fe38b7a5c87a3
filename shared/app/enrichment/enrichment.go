// Package enrichment wires the enrichment handler: official sources,
// the SSRF-safe fetcher, PDF and HTML extraction and a tool-calling model.
// It lives apart from package app so the chat function does not link the
// fetcher, the PDF reader or the charset tables; the enrich function and
// `make dev` (cmd/dev) import it.
package enrichment

import (
	"fmt"
	"log/slog"

	"regintel/shared/config"
	"regintel/shared/enrich"
	"regintel/shared/fetch"
	"regintel/shared/graph"
	"regintel/shared/graph/write"
	"regintel/shared/llm"
	"regintel/shared/metrics"
	"regintel/shared/queue"
	"regintel/shared/queue/inprocess"
	"regintel/shared/sources"
)

// NewHandler is the enrichment handler: official sources only, fetched
// through the SSRF-safe fetcher, facts extracted by a tool-calling model.
func NewHandler(cfg config.Config, store graph.ConceptStore, provider llm.Provider, log *slog.Logger) (*enrich.Handler, error) {
	if provider.Name() == "offline" {
		return nil, fmt.Errorf("enrichment needs a tool-calling model: set OPENAI_API_KEY (or OPENAI_SECRET_ARN) or LLM_PROVIDER=openai-chat with OPENAI_BASE_URL")
	}
	catalog, err := sources.New(sources.Options{})
	if err != nil {
		return nil, err
	}
	return enrich.New(enrich.Deps{
		Writes: write.NewService(store, write.WithLogger(log), write.WithSources(catalog)), Sources: catalog,
		Fetcher: fetch.New(fetch.Config{Allowlist: catalog}), Extractor: enrich.Readable(0),
		Provider: provider, Log: log, Metrics: metrics.ForFunction(cfg.Log.Format, "enrich", log),
	}, enrich.Config{Model: cfg.LLM.Model, Freshness: cfg.Chat.Freshness})
}

// InProcess runs enrichment in this process; app.Build calls it only when a
// real model is configured and no enrichment queue is set.
func InProcess(cfg config.Config, store graph.ConceptStore, provider llm.Provider, log *slog.Logger) (queue.Publisher, func(), error) {
	h, err := NewHandler(cfg, store, provider, log)
	if err != nil {
		return nil, nil, err
	}
	pub := inprocess.New("enrichment", h.HandleEnvelope, log)
	return pub, pub.Close, nil
}
