package migrations_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"regintel/migrations"
	"regintel/shared/dbsetup"
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

// The migration ledger is written by the role that migrates and by no
// other: the runtime role and the sweep role, as dbsetup grants them, can
// read it but cannot insert, change, delete or truncate its rows.
func TestOnlyTheMigrationRoleWritesTheLedger(t *testing.T) {
	ctx := context.Background()
	owner, runtime := pgtest.NewRuntimePools(t, 2)
	sweep := sweepPool(t, owner)
	writes := []string{
		`INSERT INTO goose_db_version (version_id, is_applied) VALUES (9999, true)`,
		`UPDATE goose_db_version SET is_applied = false`,
		`DELETE FROM goose_db_version WHERE version_id = 18`,
		`TRUNCATE goose_db_version`,
	}
	ledger := func() string {
		var rows string
		if err := owner.QueryRow(ctx, `SELECT string_agg(version_id::text || ':' || is_applied::text, ',' ORDER BY id) FROM goose_db_version`).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	before := ledger()
	for name, pool := range map[string]*pgxpool.Pool{"app": runtime, "sweep": sweep} {
		for _, sql := range writes {
			if _, err := pool.Exec(ctx, sql); err == nil {
				t.Errorf("the %s role ran %q", name, sql)
			}
		}
	}
	for name, pool := range map[string]*pgxpool.Pool{"app": runtime, "sweep": sweep} {
		if err := writeLedgerPastShadowCatalog(ctx, pool); err == nil {
			t.Errorf("the %s role wrote the ledger with a temporary pg_class first on its search path", name)
		}
	}
	if after := ledger(); after != before {
		t.Errorf("the ledger changed under refused writes:\n before %s\n after  %s", before, after)
	}
	var latest int64
	if err := runtime.QueryRow(ctx, `SELECT max(version_id) FROM goose_db_version`).Scan(&latest); err != nil || latest < 18 {
		t.Errorf("the app role reads the ledger: version %d, %v", latest, err)
	}
	// The migration role still records migrations: down one and up again.
	db := stdlib.OpenDBFromPool(owner)
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := provider.Down(ctx); err != nil {
		t.Fatalf("the migration role migrating down: %v", err)
	}
	if _, err := provider.Up(ctx); err != nil {
		t.Fatalf("the migration role migrating up: %v", err)
	}
}

// sweepPool signs in as a retention sweep role made by dbsetup.
func sweepPool(t *testing.T, owner *pgxpool.Pool) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	role := "regintel_sweep_" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	if err := dbsetup.EnsureSweepRole(ctx, owner, role); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pgtest.DropRole(t, owner, role) })
	cfg := owner.Config().ConnConfig.Copy()
	cfg.User = role
	cfg.Password = ""
	pool, err := pgxpool.New(ctx, "postgres://"+role+"@"+cfg.Host+":"+strconv.Itoa(int(cfg.Port))+"/"+cfg.Database+"?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// writeLedgerPastShadowCatalog tries the catalogue shadowing attack on the
// ledger's guard: a temporary table named pg_class that names the caller
// the ledger's owner, searched before pg_catalog, then a write. It returns
// the write's error (the transaction is rolled back either way).
func writeLedgerPastShadowCatalog(ctx context.Context, pool *pgxpool.Pool) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	for _, sql := range []string{
		`CREATE TEMP TABLE pg_class (oid oid, relowner oid) ON COMMIT DROP`,
		`INSERT INTO pg_temp.pg_class SELECT 'public.goose_db_version'::regclass::oid, r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = current_user`,
		`SET LOCAL search_path = pg_temp, pg_catalog, public`,
	} {
		if _, err := tx.Exec(ctx, sql); err != nil {
			return err // the attack could not even be set up: no write
		}
	}
	_, err = tx.Exec(ctx, `INSERT INTO public.goose_db_version (version_id, is_applied) VALUES (9998, true)`)
	return err
}
