// Command sweep is the retention Lambda, invoked by an EventBridge
// schedule: it deletes the context and supplied items of conversations idle
// for RETENTION_DAYS (default 30) and expires overdue context requests,
// logging the counts as JSON.
//
// It must sign in as the sweep's own role (the one the migrate function
// creates from DB_SWEEP_USER): row-level security shows the runtime role
// one tenant at a time, so as that role a sweep finds nothing.
//
// Settings: the database (DATABASE_URL or DB_HOST and the rest) and
// RETENTION_DAYS; see shared/config.
package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/aws/aws-lambda-go/lambda"

	"regintel/shared/config"
	"regintel/shared/entrypoint"
	"regintel/shared/metrics"
	"regintel/shared/pgpool"
	"regintel/shared/retention"
)

func main() { entrypoint.Main("sweep", run) }

func run(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	h, err := build(ctx, cfg, log)
	if err != nil {
		return err
	}
	lambda.Start(h.Handle)
	return nil
}

// build wires the handler. The pool connects on first use and is reused
// across invocations of a warm container.
func build(ctx context.Context, cfg config.Config, log *slog.Logger) (*retention.Handler, error) {
	if cfg.Postgres.URL == "" {
		return nil, errors.New("sweep: set DATABASE_URL or DB_HOST")
	}
	// As app.PostgresConfig does; the sweep does not import app, which
	// would link the graph driver and the model clients.
	db := pgpool.Config{URL: cfg.Postgres.URL, IAMAuth: cfg.Postgres.IAMAuth, MaxConns: cfg.Postgres.MaxConns}
	pool, err := pgpool.NewPool(ctx, db)
	if err != nil {
		return nil, err
	}
	return &retention.Handler{Pool: pool, Config: retention.Config{ContextMaxIdle: cfg.Retention.MaxIdle}, Log: log,
		Metrics: metrics.ForFunction(cfg.Log.Format, "sweep", log)}, nil
}
