package migrations_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"regintel/migrations"
	"regintel/shared/pgpool/pgtest"
)

// Turns stored as "failed" before statuses were typed read as "error" after
// the upgrade, and the schema refuses the old word from then on.
func TestFailedTurnsBecomeError(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t, 2)
	db := stdlib.OpenDBFromPool(pool)
	t.Cleanup(func() { _ = db.Close() })
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
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
