package dbsetup_test

import (
	"context"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"regintel/migrations"
	"regintel/shared/dbsetup"
	"regintel/shared/pgpool"
	"regintel/shared/pgpool/pgtest"
)

// embeddedVersions lists the versions of the embedded migration files.
func embeddedVersions(t *testing.T) []int64 {
	t.Helper()
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("no embedded migrations (%v)", err)
	}
	var versions []int64
	for _, name := range names {
		prefix, _, _ := strings.Cut(name, "_")
		v, err := strconv.ParseInt(prefix, 10, 64)
		if err != nil {
			t.Fatalf("migration %s has no numeric version", name)
		}
		versions = append(versions, v)
	}
	slices.Sort(versions)
	return versions
}

func TestMigrateIsIdempotent(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t, 2)
	want := embeddedVersions(t)

	first, err := dbsetup.ApplyMigrations(ctx, pool)
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	if !slices.Equal(first.Applied, want) || first.Version != want[len(want)-1] {
		t.Fatalf("first run = %+v, want applied %v", first, want)
	}
	second, err := dbsetup.ApplyMigrations(ctx, pool)
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	if len(second.Applied) != 0 || second.Version != first.Version {
		t.Fatalf("second run = %+v, want nothing applied at version %d", second, first.Version)
	}

	for _, table := range []string{"conversations", "conversation_turns", "conversation_context"} {
		var hasTenant bool
		err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM information_schema.columns
			WHERE table_name = $1 AND column_name = 'tenant_id' AND data_type = 'uuid' AND is_nullable = 'NO')`, table).Scan(&hasTenant)
		if err != nil || !hasTenant {
			t.Errorf("table %s: tenant_id uuid not null missing (err %v)", table, err)
		}
	}
}

// Two processes starting at once (two Lambda triggers, two make dev
// instances) both succeed and each migration is applied exactly once.
func TestConcurrentMigrateAppliesOnce(t *testing.T) {
	ctx := context.Background()
	dbURL := pgtest.NewDatabase(t)
	want := embeddedVersions(t)

	const processes = 3
	outcomes := make([]dbsetup.MigrationOutcome, processes)
	errs := make([]error, processes)
	var wg sync.WaitGroup
	for i := range processes {
		// A pool each, as separate processes would have.
		pool, err := pgpool.NewPool(ctx, pgpool.Config{URL: dbURL})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		wg.Go(func() { outcomes[i], errs[i] = dbsetup.ApplyMigrations(ctx, pool) })
	}
	wg.Wait()

	var applied []int64
	for i := range processes {
		if errs[i] != nil {
			t.Fatalf("process %d: %v", i, errs[i])
		}
		applied = append(applied, outcomes[i].Applied...)
	}
	slices.Sort(applied)
	if !slices.Equal(applied, want) {
		t.Fatalf("versions applied across processes = %v, want each of %v once", applied, want)
	}
}
