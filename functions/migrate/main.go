// Command migrate is the Lambda function that applies the Postgres schema
// migrations; the deploy runs it as a CDK Trigger. Database settings come
// from the environment (see postgres.ConfigFromEnv).
package main

import (
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"regintel/shared/migrate"
	"regintel/shared/postgres"
)

func main() {
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stdout, nil)))
	cfg, err := postgres.ConfigFromEnv()
	if err != nil {
		// An init failure fails the invocation, and so the deploy.
		slog.Error("migrate: configuration", "error", err)
		os.Exit(1)
	}
	lambda.Start(&migrate.Handler{Database: cfg})
}
