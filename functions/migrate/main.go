// Command migrate is the Lambda function that applies the Postgres schema
// migrations, and the graph schema when the graph is reachable; the deploy
// runs it as its migrate step (a custom resource). In AWS it signs in with
// the master secret (DB_SECRET_ARN), grants the runtime role DB_APP_USER and the sweep's role
// DB_SWEEP_USER. Settings: the database, the graph and those three; see
// shared/config. Outside Lambda (`make migrate`) it runs once, prints the
// outcome and exits.
//
// With MIGRATE_STEP=graph it is the deploy's graph step instead: the graph
// schema, then the shipped dataset, both idempotent; any failure fails the
// invocation and so the deploy. The stack runs that step after the graph's
// secret and routes exist, and again whenever the schema or dataset change.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/aws/aws-lambda-go/lambda"

	"regintel/shared/app"
	"regintel/shared/config"
	"regintel/shared/dbsetup"
	"regintel/shared/entrypoint"
	"regintel/shared/pgpool"
	"regintel/shared/secrets"
)

func main() { entrypoint.Main("migrate", run) }

// run fails the invocation on an init failure, and so the deploy.
func run(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	if cfg.Migrate.Step == "graph" {
		// Without MEMGRAPH_URI the step runs on the in-memory graph: a dry
		// run of the schema and the dataset (`sam local`).
		return serve(ctx, cfg, graphStep{cfg: cfg.Graph, log: log})
	}
	h, err := build(ctx, cfg, log)
	if err != nil {
		return err
	}
	return serve(ctx, cfg, h)
}

// serve runs h once and prints its outcome outside Lambda, or serves
// invocations on Lambda.
func serve(ctx context.Context, cfg config.Config, h lambda.Handler) error {
	if !cfg.OnLambda {
		out, err := h.Invoke(ctx, nil)
		if err != nil {
			return err
		}
		fmt.Println(string(out))
		return nil
	}
	lambda.Start(h)
	return nil
}

func build(ctx context.Context, cfg config.Config, log *slog.Logger) (*dbsetup.Handler, error) {
	if cfg.Postgres.URL == "" {
		return nil, errors.New("migrate: set DATABASE_URL or DB_HOST")
	}
	db := app.PostgresConfig(cfg.Postgres)
	h := &dbsetup.Handler{Database: db, AppRole: cfg.Migrate.AppUser, SweepRole: cfg.Migrate.SweepUser}
	if arn := cfg.Migrate.DBSecretARN; arn != "" {
		// Read at each sign-in attempt, not at cold start: the secret may
		// be rotated between two attempts.
		h.SignIn = func(ctx context.Context) (pgpool.Config, error) { return masterSignIn(ctx, db, arn) }
	}
	if cfg.Graph.URI != "" {
		h.GraphSchema = func(ctx context.Context) error { return applyGraphSchema(ctx, cfg.Graph, log) }
	}
	return h, nil
}

// startGraphStep serves the graph step: schema and dataset on each invoke.
func applyGraphSchema(ctx context.Context, cfg config.Graph, log *slog.Logger) error {
	store, closeGraph, err := app.OpenGraph(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeGraph()
	return store.ApplySchema(ctx)
}

func masterSignIn(ctx context.Context, cfg pgpool.Config, arn string) (pgpool.Config, error) {
	client, err := secrets.NewClient(ctx)
	if err != nil {
		return cfg, err
	}
	user, err := secrets.String(ctx, client, arn, "username")
	if err != nil {
		return cfg, err
	}
	password, err := secrets.String(ctx, client, arn, "password")
	if err != nil {
		return cfg, err
	}
	return dbsetup.WithPassword(cfg, user, password)
}
