package dbsetup_test

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/aws/aws-lambda-go/lambda"

	"regintel/shared/dbsetup"
	"regintel/shared/pgpool"
	"regintel/shared/pgpool/pgtest"
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
	invoker := lambda.NewHandler(&dbsetup.Handler{Database: pgpool.Config{URL: pgtest.NewDatabase(t)}})
	event := sampleEvent(t)

	var first, second dbsetup.MigrationOutcome
	for i, out := range []*dbsetup.MigrationOutcome{&first, &second} {
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
	invoker := lambda.NewHandler(&dbsetup.Handler{Database: pgpool.Config{URL: pgtest.NewDatabase(t)}})
	for _, payload := range [][]byte{nil, []byte(`{}`), []byte(`"anything"`)} {
		if _, err := invoker.Invoke(context.Background(), payload); err != nil {
			t.Errorf("payload %q: %v", payload, err)
		}
	}
}

// An unreachable database is an invocation error, so the deploy fails.
func TestHandlerFailsWhenDatabaseUnreachable(t *testing.T) {
	invoker := lambda.NewHandler(&dbsetup.Handler{Database: pgpool.Config{URL: "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=5"}})
	if _, err := invoker.Invoke(context.Background(), sampleEvent(t)); err == nil {
		t.Fatal("invocation against an unreachable database succeeded")
	}
}

// With an application role, the handler creates it and grants it data
// access; the role can then read and write the tables (idempotently).
func TestHandlerGrantsTheApplicationRole(t *testing.T) {
	ctx := context.Background()
	dbURL := pgtest.NewDatabase(t)
	parsed, _ := url.Parse(dbURL)
	role := "regintel_app_" + strings.TrimPrefix(parsed.Path, "/regintel_t_")
	h := &dbsetup.Handler{Database: pgpool.Config{URL: dbURL}, AppRole: role}
	for i := 0; i < 2; i++ {
		if _, err := h.Run(ctx); err != nil {
			t.Fatalf("run %d: %v", i+1, err)
		}
	}
	u, _ := url.Parse(dbURL)
	u.User = url.User(role)
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// It writes within the scope the store sets, and nowhere else.
	tenant := "6b1f3c52-3d8e-4d1e-9a53-2f0c8b7a9e10"
	scoped := `WITH scope AS (SELECT set_config('regintel.tenant_id', $1::text, true), set_config('regintel.owner_id', 'u', true))
		INSERT INTO conversations (tenant_id, owner_id) SELECT $1::uuid, 'u' FROM scope`
	if _, err := conn.Exec(ctx, scoped, tenant); err != nil {
		t.Fatalf("application role cannot write in its scope: %v", err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO conversations (tenant_id, owner_id) VALUES (gen_random_uuid(), 'u')"); err == nil {
		t.Fatal("application role wrote a row outside any tenant scope")
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE sneaky (id int)"); err == nil {
		t.Fatal("application role can create tables; it should only have data access")
	}
	t.Cleanup(func() {
		admin, err := pgx.Connect(ctx, dbURL)
		if err == nil {
			_, _ = admin.Exec(ctx, "DROP OWNED BY "+pgx.Identifier{role}.Sanitize())
			_, _ = admin.Exec(ctx, "DROP ROLE "+pgx.Identifier{role}.Sanitize())
			admin.Close(ctx)
		}
	})
}
