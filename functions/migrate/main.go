// Command migrate is the Lambda function that applies the Postgres schema
// migrations, and the graph schema when the graph is reachable; the deploy
// runs it as a CDK Trigger. Database settings come from the environment (see
// pgpool.ConfigFromEnv); in AWS it signs in with the master secret
// (DB_SECRET_ARN) and grants the runtime role DB_APP_USER.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"regintel/shared/app"
	"regintel/shared/config"
	"regintel/shared/dbsetup"
	"regintel/shared/pgpool"
	"regintel/shared/secrets"
)

func main() {
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stdout, nil)))
	h, err := build(context.Background())
	if err != nil {
		// An init failure fails the invocation, and so the deploy.
		slog.Error("migrate: configuration", "error", err)
		os.Exit(1)
	}
	lambda.Start(h)
}

func build(ctx context.Context) (*dbsetup.Handler, error) {
	db, err := pgpool.ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	if arn := os.Getenv("DB_SECRET_ARN"); arn != "" {
		if db, err = masterSignIn(ctx, db, arn); err != nil {
			return nil, err
		}
	}
	h := &dbsetup.Handler{Database: db, AppRole: os.Getenv("DB_APP_USER")}
	if os.Getenv("MEMGRAPH_URI") != "" {
		cfg, err := config.FromEnv()
		if err != nil {
			return nil, err
		}
		h.GraphSchema = func(ctx context.Context) error { return applyGraphSchema(ctx, cfg) }
	}
	return h, nil
}

func applyGraphSchema(ctx context.Context, cfg config.Config) error {
	store, closeGraph, err := app.OpenGraph(ctx, cfg, slog.Default())
	if err != nil {
		return err
	}
	defer closeGraph()
	schema, ok := store.(interface{ ApplySchema(context.Context) error })
	if !ok {
		return fmt.Errorf("graph backend has no schema to apply")
	}
	return schema.ApplySchema(ctx)
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
