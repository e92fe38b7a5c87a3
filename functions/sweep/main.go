// Command sweep is the retention Lambda (seed 000 §3.2), invoked by an
// EventBridge schedule: it deletes the context and supplied items of
// conversations idle for RETENTION_DAYS (default 30) and expires overdue
// context requests, logging the counts as JSON.
//
// Environment: the database settings of pgpool.ConfigFromEnv and
// RETENTION_DAYS.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"regintel/shared/pgpool"
	"regintel/shared/retention"
)

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	slog.SetDefault(log)
	h, err := build(context.Background(), log)
	if err != nil {
		log.Error("sweep: start", "error", err)
		os.Exit(1)
	}
	lambda.Start(h.Handle)
}

// build wires the handler from the environment. The pool connects on first
// use and is reused across invocations of a warm container.
func build(ctx context.Context, log *slog.Logger) (*retention.Handler, error) {
	cfg, err := retention.ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	dbCfg, err := pgpool.ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	pool, err := pgpool.NewPool(ctx, dbCfg)
	if err != nil {
		return nil, err
	}
	return &retention.Handler{Pool: pool, Config: cfg, Log: log}, nil
}
