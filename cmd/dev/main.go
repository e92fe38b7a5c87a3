// Command dev is the local server that `make dev` runs: the chat API of
// the chat function, plus enrichment in this process when a real model is
// configured and ENRICHMENT_QUEUE_URL is unset, and the Postgres migrations
// at start when DATABASE_URL is set. The chat Lambda leaves enrichment to
// the enrich function and migrations to the migrate function, so it links
// neither.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"regintel/shared/app"
	"regintel/shared/app/enrichment"
	"regintel/shared/config"
	"regintel/shared/dbsetup"
	"regintel/shared/logging"
)

func main() {
	cfg, err := config.FromEnv()
	log := logging.New(cfg.Log)
	slog.SetDefault(log)
	if err != nil {
		log.Error("dev: invalid configuration", "err", err)
		os.Exit(1)
	}
	stopTracing := app.StartTracing(context.Background(), cfg.Tracing, "dev", log)
	defer stopTracing()
	a, err := app.Build(context.Background(), cfg, log, app.WithInProcessEnrichment(enrichment.InProcess), app.WithMigrations(migrate))
	if err != nil {
		log.Error("dev: start", "err", err)
		os.Exit(1)
	}
	defer a.Close()
	if err := app.ServeLocal(a.Handler, cfg.Port, log); err != nil {
		log.Error("dev: server stopped", "err", err)
		os.Exit(1)
	}
}

func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := dbsetup.ApplyMigrations(ctx, pool)
	return err
}
