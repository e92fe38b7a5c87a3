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

	"github.com/jackc/pgx/v5/pgxpool"

	"regintel/shared/app"
	"regintel/shared/app/enrichment"
	"regintel/shared/config"
	"regintel/shared/dbsetup"
	"regintel/shared/entrypoint"
)

func main() { entrypoint.Main("dev", run) }

func run(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	defer app.StartTracing(ctx, cfg.Tracing, "dev", log)()
	a, err := app.Build(ctx, cfg, log, app.WithInProcessEnrichment(enrichment.InProcess), app.WithMigrations(migrate))
	if err != nil {
		return err
	}
	defer a.Close()
	return app.ServeLocal(a.Handler, cfg.Port, log)
}

func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := dbsetup.ApplyMigrations(ctx, pool)
	return err
}
