// Package pgtest gives tests their own database on the test PostgreSQL
// server, so test packages run in parallel (go test -p N) without seeing
// each other's rows or schema.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"regintel/shared/dbsetup"
	"regintel/shared/pgpool"
	"regintel/shared/testenv"
)

// NewDatabase creates an empty database on the server of TEST_DATABASE_URL
// and returns its URL. The database is dropped when the test ends. The test
// is skipped (or fails under REQUIRE_TEST_SERVERS=1) when the server is not
// configured.
func NewDatabase(t testing.TB) string {
	t.Helper()
	adminURL := testenv.Require(t, "TEST_DATABASE_URL")
	name := "regintel_t_" + randomHex(t, 8)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatalf("pgtest: connecting to the test server: %v", err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: creating database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, adminURL)
		if err != nil {
			t.Logf("pgtest: dropping %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("pgtest: dropping %s: %v", name, err)
		}
	})

	u, err := url.Parse(adminURL)
	if err != nil {
		t.Fatalf("pgtest: TEST_DATABASE_URL is not a URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

// NewPool returns a pool on a fresh empty database, closed when the test
// ends. maxConns sizes it for the test's own concurrency.
func NewPool(t testing.TB, maxConns int32) *pgxpool.Pool {
	t.Helper()
	pool, err := pgpool.NewPool(context.Background(), pgpool.Config{URL: NewDatabase(t), MaxConns: maxConns})
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	// Registered after NewDatabase's cleanup, so it runs first.
	t.Cleanup(pool.Close)
	return pool
}

// NewMigratedPool returns a pool on a fresh database with every embedded
// migration applied.
func NewMigratedPool(t testing.TB, maxConns int32) *pgxpool.Pool {
	t.Helper()
	pool := NewPool(t, maxConns)
	if _, err := dbsetup.ApplyMigrations(context.Background(), pool); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return pool
}

func randomHex(t testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return hex.EncodeToString(b)
}

// NewRuntimePools returns two pools on one fresh migrated database: owner
// signs in as the test server's user, which ran the migrations (for tests
// that look at or set up rows directly), and runtime as a role made like the
// functions' (dbsetup.EnsureAppRole): it owns no table and every query it
// makes is subject to row-level security. The role is dropped when the test
// ends. The runtime pool prepares statements, as deployed without RDS Proxy.
func NewRuntimePools(t testing.TB, maxConns int32) (owner, runtime *pgxpool.Pool) {
	t.Helper()
	return NewRuntimePoolsCaching(t, maxConns, true)
}

// NewRuntimePoolsCaching is NewRuntimePools with both pools' statement
// cache on or off (off: as deployed behind RDS Proxy).
func NewRuntimePoolsCaching(t testing.TB, maxConns int32, statementCache bool) (owner, runtime *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	dbURL := NewDatabase(t)
	owner, err := pgpool.NewPool(ctx, pgpool.Config{URL: dbURL, MaxConns: 4, StatementCache: statementCache})
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(owner.Close)
	if _, err := dbsetup.ApplyMigrations(ctx, owner); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	role := "regintel_app_" + strings.TrimPrefix(u.Path, "/regintel_t_")
	if err := dbsetup.EnsureAppRole(ctx, owner, role); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() { DropRole(t, owner, role) })
	u.User = url.User(role)
	runtime, err = pgpool.NewPool(ctx, pgpool.Config{URL: u.String(), MaxConns: maxConns, StatementCache: statementCache})
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(runtime.Close)
	return owner, runtime
}

// DropRole removes a login role a test made, with its grants in the pool's
// database (roles outlive databases).
func DropRole(t testing.TB, pool *pgxpool.Pool, role string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ident := pgx.Identifier{role}.Sanitize()
	for _, sql := range []string{"DROP OWNED BY " + ident, "DROP ROLE IF EXISTS " + ident} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			t.Logf("pgtest: dropping role %s: %v", role, err)
		}
	}
}
