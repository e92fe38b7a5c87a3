package migrate_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/aws/aws-lambda-go/lambda"

	"regintel/shared/migrate"
	"regintel/shared/postgres"
	"regintel/shared/postgres/pgtest"
)

func sampleEvent(t *testing.T) []byte {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	event, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "events", "migrate.json"))
	if err != nil {
		t.Fatal(err)
	}
	return event
}

// The handler, invoked the way the Lambda runtime invokes it with the
// sample event, migrates a fresh database and is a no-op the second time.
func TestHandlerMigratesIdempotently(t *testing.T) {
	ctx := context.Background()
	invoker := lambda.NewHandler(&migrate.Handler{Database: postgres.Config{URL: pgtest.NewDatabase(t)}})
	event := sampleEvent(t)

	var first, second postgres.MigrationOutcome
	for i, out := range []*postgres.MigrationOutcome{&first, &second} {
		response, err := invoker.Invoke(ctx, event)
		if err != nil {
			t.Fatalf("invocation %d: %v", i+1, err)
		}
		if err := json.Unmarshal(response, out); err != nil {
			t.Fatalf("invocation %d response %s: %v", i+1, response, err)
		}
	}
	if len(first.Applied) == 0 || first.Version == 0 {
		t.Fatalf("first invocation applied nothing: %+v", first)
	}
	if len(second.Applied) != 0 || second.Version != first.Version {
		t.Fatalf("second invocation = %+v, want nothing applied at version %d", second, first.Version)
	}
}

// Any payload is accepted, including an empty one.
func TestHandlerIgnoresPayload(t *testing.T) {
	invoker := lambda.NewHandler(&migrate.Handler{Database: postgres.Config{URL: pgtest.NewDatabase(t)}})
	for _, payload := range [][]byte{nil, []byte(`{}`), []byte(`"anything"`)} {
		if _, err := invoker.Invoke(context.Background(), payload); err != nil {
			t.Errorf("payload %q: %v", payload, err)
		}
	}
}

// An unreachable database is an invocation error, so the deploy fails.
func TestHandlerFailsWhenDatabaseUnreachable(t *testing.T) {
	invoker := lambda.NewHandler(&migrate.Handler{Database: postgres.Config{URL: "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=5"}})
	if _, err := invoker.Invoke(context.Background(), sampleEvent(t)); err == nil {
		t.Fatal("invocation against an unreachable database succeeded")
	}
}
