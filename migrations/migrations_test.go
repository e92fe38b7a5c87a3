package migrations_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"regintel/migrations"
	"regintel/shared/pgpool/pgtest"
)

// newMigrator is a fresh empty database and a goose provider of the
// embedded migrations on it, to migrate up or down to a version.
func newMigrator(t *testing.T) (*pgxpool.Pool, *goose.Provider) {
	t.Helper()
	pool := pgtest.NewPool(t, 2)
	db := stdlib.OpenDBFromPool(pool)
	t.Cleanup(func() { _ = db.Close() })
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	return pool, provider
}

// Turns stored as "failed" before statuses were typed read as "error" after
// the upgrade, and the schema refuses the old word from then on.
func TestFailedTurnsBecomeError(t *testing.T) {
	ctx := context.Background()
	pool, provider := newMigrator(t)
	// The schema as it was when a failed turn said "failed".
	if _, err := provider.UpTo(ctx, 3); err != nil {
		t.Fatal(err)
	}
	tenant, conv := uuid.NewString(), uuid.NewString()
	if _, err := pool.Exec(ctx, `INSERT INTO conversations (id, tenant_id, owner_id) VALUES ($1::uuid, $2::uuid, 'u')`, conv, tenant); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO conversation_turns (tenant_id, conversation_id, turn_number, user_text, status)
		VALUES ($1::uuid, $2::uuid, 1, 'q1', 'ok'), ($1::uuid, $2::uuid, 2, 'q2', 'failed'), ($1::uuid, $2::uuid, 3, 'q3', 'context_required')`,
		tenant, conv); err != nil {
		t.Fatal(err)
	}

	if _, err := provider.Up(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT status FROM conversation_turns WHERE conversation_id = $1::uuid ORDER BY turn_number`, conv)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var status string
		if err := rows.Scan(&status); err != nil {
			t.Fatal(err)
		}
		got = append(got, status)
	}
	if rows.Err() != nil || len(got) != 3 || got[0] != "ok" || got[1] != "error" || got[2] != "context_required" {
		t.Fatalf("statuses after the upgrade = %v (err %v), want [ok error context_required]", got, rows.Err())
	}
	if _, err := pool.Exec(ctx, `INSERT INTO conversation_turns (tenant_id, conversation_id, turn_number, user_text, status)
		VALUES ($1::uuid, $2::uuid, 4, 'q4', 'failed')`, tenant, conv); err == nil {
		t.Error(`a turn with status "failed" was stored after the upgrade`)
	}
}

// A tenant's day of usage spread over shards keeps its totals when the
// shards are merged back (down) and spread again (up).
func TestTenantUsageShardsKeepTotals(t *testing.T) {
	ctx := context.Background()
	pool, provider := newMigrator(t)
	if _, err := provider.UpTo(ctx, 14); err != nil {
		t.Fatal(err)
	}
	tenant := uuid.NewString()
	// Under forced RLS the owner sees a tenant's rows only in its scope.
	scope := `SELECT set_config('regintel.tenant_id', $1, false)`
	total := func() (tokens, turns, rows int64) {
		t.Helper()
		conn, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Release()
		if _, err := conn.Exec(ctx, scope, tenant); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRow(ctx, `SELECT coalesce(sum(total_tokens), 0), coalesce(sum(turns), 0), count(*)
			FROM tenant_daily_usage WHERE tenant_id = $1::uuid`, tenant).Scan(&tokens, &turns, &rows); err != nil {
			t.Fatal(err)
		}
		return tokens, turns, rows
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, scope, tenant); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO tenant_daily_usage (tenant_id, day, shard, total_tokens, turns)
		VALUES ($1::uuid, current_date, 0, 100, 1), ($1::uuid, current_date, 7, 50, 2), ($1::uuid, current_date, 15, 25, 3)`, tenant); err != nil {
		t.Fatal(err)
	}
	conn.Release()
	if tokens, turns, rows := total(); tokens != 175 || turns != 6 || rows != 3 {
		t.Fatalf("sharded: %d tokens, %d turns in %d rows", tokens, turns, rows)
	}
	if _, err := provider.DownTo(ctx, 13); err != nil {
		t.Fatal(err)
	}
	if tokens, turns, rows := total(); tokens != 175 || turns != 6 || rows != 1 {
		t.Fatalf("merged: %d tokens, %d turns in %d rows, want 175, 6 in 1", tokens, turns, rows)
	}
	if _, err := provider.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if tokens, turns, _ := total(); tokens != 175 || turns != 6 {
		t.Fatalf("after up again: %d tokens, %d turns", tokens, turns)
	}
}
