// Command migrate is the Lambda function that applies the Postgres schema
// migrations, and the graph schema when the graph is reachable; the deploy
// runs it as a CDK Trigger. In AWS it signs in with the master secret
// (DB_SECRET_ARN), grants the runtime role DB_APP_USER and the sweep's role
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
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"regintel/shared/app"
	"regintel/shared/config"
	"regintel/shared/dbsetup"
	"regintel/shared/logging"
	"regintel/shared/pgpool"
	"regintel/shared/secrets"
)

func main() {
	cfg, err := config.FromEnv()
	log := logging.New(cfg.Log)
	slog.SetDefault(log)
	if err != nil {
		// An init failure fails the invocation, and so the deploy.
		log.Error("migrate: invalid configuration", "err", err)
		os.Exit(1)
	}
	if os.Getenv("MIGRATE_STEP") == "graph" {
		startGraphStep(cfg, log)
		return
	}
	h, err := build(context.Background(), cfg, log)
	if err != nil {
		log.Error("migrate: start", "err", err)
		os.Exit(1)
	}
	if !cfg.OnLambda {
		out, err := h.Invoke(context.Background(), nil)
		if err != nil {
			os.Exit(1) // Invoke has logged it
		}
		fmt.Println(string(out))
		return
	}
	lambda.Start(h)
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
func startGraphStep(cfg config.Config, log *slog.Logger) {
	// Without MEMGRAPH_URI the step runs on the in-memory graph: a dry run
	// of the schema and the dataset (`sam local`).
	step := graphStep{cfg: cfg.Graph, log: log}
	if !cfg.OnLambda {
		out, err := step.Invoke(context.Background(), nil)
		if err != nil {
			os.Exit(1) // Invoke has logged it
		}
		fmt.Println(string(out))
		return
	}
	lambda.Start(step)
}

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
