// Command migrate is the Lambda function that applies the Postgres schema
// migrations; the deploy runs it as a CDK Trigger. Database settings come
// from the environment (see postgres.ConfigFromEnv); in AWS it signs in with
// the master secret (DB_SECRET_ARN) and grants the runtime role DB_APP_USER.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"regintel/shared/migrate"
	"regintel/shared/postgres"
	"regintel/shared/secrets"
)

func main() {
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stdout, nil)))
	cfg, err := postgres.ConfigFromEnv()
	if err == nil {
		if arn := os.Getenv("DB_SECRET_ARN"); arn != "" {
			cfg, err = masterSignIn(context.Background(), cfg, arn)
		}
	}
	if err != nil {
		// An init failure fails the invocation, and so the deploy.
		slog.Error("migrate: configuration", "error", err)
		os.Exit(1)
	}
	lambda.Start(&migrate.Handler{Database: cfg, AppRole: os.Getenv("DB_APP_USER")})
}

func masterSignIn(ctx context.Context, cfg postgres.Config, arn string) (postgres.Config, error) {
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
	return migrate.WithPassword(cfg, user, password)
}
