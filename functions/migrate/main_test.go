package main

import (
	"context"
	"log/slog"
	"os"
	"testing"

	"github.com/aws/aws-lambda-go/lambda"

	"regintel/shared/config"
	"regintel/shared/dbsetup"
	"regintel/shared/pgpool/pgtest"
	"regintel/shared/testenv"
)

// The function as wired from its environment, invoked with its sample event
// as the Lambda runtime would: Postgres migrated, graph schema applied on the
// Bolt test server; and a second invoke is a no-op.
func TestSampleEventMigratesPostgresAndTheGraph(t *testing.T) {
	t.Setenv("DATABASE_URL", pgtest.NewDatabase(t))
	t.Setenv("MEMGRAPH_URI", testenv.Require(t, "TEST_BOLT_URI"))
	t.Setenv("DB_SECRET_ARN", "")
	t.Setenv("AWS_LAMBDA_RUNTIME_API", "")
	event, err := os.ReadFile("../../events/migrate.json")
	if err != nil {
		t.Fatal(err)
	}
	h, err := wire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h.GraphSchema == nil {
		t.Fatal("graph schema step not wired although MEMGRAPH_URI is set")
	}
	invoker := lambda.NewHandler(h)
	for i := 0; i < 2; i++ {
		if _, err := invoker.Invoke(context.Background(), event); err != nil {
			t.Fatalf("invoke %d: %v", i+1, err)
		}
	}
	// The graph step itself, run directly, must succeed against the server.
	if err := h.GraphSchema(context.Background()); err != nil {
		t.Fatalf("graph schema: %v", err)
	}
}

// wire builds the function as main does, from the environment.
func wire(ctx context.Context) (*dbsetup.Handler, error) {
	cfg, err := config.FromEnv()
	if err != nil {
		return nil, err
	}
	return build(ctx, cfg, slog.Default())
}
