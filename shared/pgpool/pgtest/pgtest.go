// Package pgtest gives tests their own database on the test PostgreSQL
// server, so test packages run in parallel (go test -p N) without seeing
// each other's rows or schema.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

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
	if _, err := pgpool.ApplyMigrations(context.Background(), pool); err != nil {
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
