package app

import (
	"errors"
	"fmt"

	"regintel/shared/config"
	"regintel/shared/graph/bolt"
	"regintel/shared/llm/pricing"
	"regintel/shared/pgpool"
)

// The package configurations, from the process configuration.

// PostgresConfig is the pool configuration of the database settings.
func PostgresConfig(cfg config.Postgres) pgpool.Config {
	return pgpool.Config{URL: cfg.URL, IAMAuth: cfg.IAMAuth, MaxConns: cfg.MaxConns, StatementCache: cfg.StatementCache}
}

// GraphConfig is the Bolt configuration of the graph settings, without the
// credentials of MEMGRAPH_SECRET_ARN (OpenGraph fetches those).
func GraphConfig(cfg config.Graph) (bolt.Config, error) {
	if cfg.URI == "" {
		return bolt.Config{}, errors.New("MEMGRAPH_URI is not set")
	}
	dialect, err := bolt.ParseDialect(cfg.Dialect)
	if err != nil {
		return bolt.Config{}, err
	}
	return bolt.Config{URI: cfg.URI, User: cfg.User, Password: cfg.Password, Database: cfg.Database, Dialect: dialect}, nil
}

// prices is the built-in price list with the configured prices added.
func prices(configured map[string]config.ModelPrice) pricing.Table {
	extra := make(pricing.Table, len(configured))
	for model, p := range configured {
		extra[model] = pricing.Price{Input: p.Input, CachedInput: p.CachedInput, Output: p.Output}
	}
	return pricing.Defaults().With(extra)
}

// turnPrices is the price table of the chat turns; a daily cost cap needs
// the model to have a price, or it could never be applied.
func turnPrices(cfg config.Config) (pricing.Table, error) {
	table := prices(cfg.LLM.Prices)
	if _, ok := table.Lookup(cfg.LLM.Model); !ok && cfg.Chat.DailyCostLimitUSD > 0 {
		return nil, fmt.Errorf("TENANT_DAILY_COST_LIMIT_USD needs a price for LLM_MODEL=%s: add it to LLM_PRICES", cfg.LLM.Model)
	}
	return table, nil
}
