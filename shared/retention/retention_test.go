package retention_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"regintel/shared/pgpool/pgtest"
	"regintel/shared/retention"
)

// seedGroup inserts n conversations of a fresh tenant whose last activity
// was at active, each with a context and two supplied items last touched
// at touched, one pending request due at due, one pending request due in
// an hour and one fulfilled request long overdue. It returns the tenant.
func seedGroup(t *testing.T, pool *pgxpool.Pool, n int, active, touched, due time.Time) string {
	t.Helper()
	ctx := context.Background()
	tenant := uuid.NewString()
	statements := []string{
		`INSERT INTO conversations (tenant_id, owner_id, created_at, updated_at)
		 SELECT @tenant::uuid, 'owner', @active::timestamptz, @active::timestamptz FROM generate_series(1, @n::integer)`,
		`INSERT INTO conversation_context (tenant_id, conversation_id, context_json, updated_at)
		 SELECT tenant_id, id, '{"activeNodeIds": ["TAX:IE:VAT"]}', @touched::timestamptz FROM conversations WHERE tenant_id = @tenant::uuid`,
		`INSERT INTO supplied_context_items (tenant_id, conversation_id, key, kind, content, created_at, last_used_at)
		 SELECT tenant_id, id, 'k' || k, 'text', 'supplied text', @touched::timestamptz, @touched::timestamptz
		 FROM conversations, generate_series(1, 2) AS k WHERE tenant_id = @tenant::uuid`,
		`INSERT INTO context_requests (tenant_id, conversation_id, status, expires_at, created_at)
		 SELECT tenant_id, id, 'pending', @due::timestamptz, @due::timestamptz - interval '15 minutes' FROM conversations WHERE tenant_id = @tenant::uuid`,
		`INSERT INTO context_requests (tenant_id, conversation_id, status, expires_at)
		 SELECT tenant_id, id, 'pending', now() + interval '1 hour' FROM conversations WHERE tenant_id = @tenant::uuid`,
		`INSERT INTO context_requests (tenant_id, conversation_id, status, expires_at, resolved_at)
		 SELECT tenant_id, id, 'fulfilled', @due::timestamptz, @due::timestamptz FROM conversations WHERE tenant_id = @tenant::uuid`,
	}
	for _, sql := range statements {
		args := pgx.NamedArgs{"tenant": tenant, "active": active, "touched": touched, "due": due, "n": n}
		if _, err := pool.Exec(ctx, sql, args); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	return tenant
}

func count(t *testing.T, pool *pgxpool.Pool, sql, tenant string) int64 {
	t.Helper()
	var n int64
	if err := pool.QueryRow(context.Background(), sql, tenant).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

type tenantRows struct {
	contexts, items, pending, expired, fulfilled int64
}

func rowsOf(t *testing.T, pool *pgxpool.Pool, tenant string) tenantRows {
	t.Helper()
	return tenantRows{
		contexts:  count(t, pool, `SELECT count(*) FROM conversation_context WHERE tenant_id = $1::uuid`, tenant),
		items:     count(t, pool, `SELECT count(*) FROM supplied_context_items WHERE tenant_id = $1::uuid`, tenant),
		pending:   count(t, pool, `SELECT count(*) FROM context_requests WHERE tenant_id = $1::uuid AND status = 'pending'`, tenant),
		expired:   count(t, pool, `SELECT count(*) FROM context_requests WHERE tenant_id = $1::uuid AND status = 'expired' AND resolved_at IS NOT NULL`, tenant),
		fulfilled: count(t, pool, `SELECT count(*) FROM context_requests WHERE tenant_id = $1::uuid AND status = 'fulfilled'`, tenant),
	}
}

// sweepTogether runs two sweeps at once and returns what each reported.
func sweepTogether(t *testing.T, pool *pgxpool.Pool, cfg retention.Config) []retention.Counts {
	t.Helper()
	var wg sync.WaitGroup
	start := make(chan struct{})
	results := make([]retention.Counts, 2)
	errs := make([]error, 2)
	for i := range results {
		wg.Go(func() {
			<-start
			results[i], errs[i] = retention.Sweep(context.Background(), pool, cfg)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("sweep %d: %v", i, err)
		}
	}
	return results
}

func TestConcurrentSweepsChangeEachRowOnce(t *testing.T) {
	pool := pgtest.NewMigratedPool(t, 8)
	now := time.Now().UTC()
	long := now.Add(-40 * 24 * time.Hour)
	recent := now.Add(-24 * time.Hour)
	overdue := now.Add(-time.Hour)

	const idleN, activeN, freshN = 60, 15, 10
	// Idle for 40 days: context and items go, the overdue request expires.
	idle := seedGroup(t, pool, idleN, long, long, overdue)
	// Stale context and items, but a turn yesterday: they stay; only the
	// overdue request expires.
	active := seedGroup(t, pool, activeN, recent, long, overdue)
	// Everything recent and nothing due: nothing changes but the overdue one.
	fresh := seedGroup(t, pool, freshN, recent, recent, overdue)

	cfg := retention.Config{ContextMaxIdle: 30 * 24 * time.Hour, Now: now, BatchSize: 7}
	results := sweepTogether(t, pool, cfg)

	total := retention.Counts{
		ContextsDeleted:      results[0].ContextsDeleted + results[1].ContextsDeleted,
		SuppliedItemsDeleted: results[0].SuppliedItemsDeleted + results[1].SuppliedItemsDeleted,
		RequestsExpired:      results[0].RequestsExpired + results[1].RequestsExpired,
	}
	want := retention.Counts{
		ContextsDeleted:      idleN,
		SuppliedItemsDeleted: 2 * idleN,
		RequestsExpired:      idleN + activeN + freshN,
	}
	if total != want {
		t.Errorf("sweeps reported %+v and %+v, summing to %+v; want %+v", results[0], results[1], total, want)
	}

	for name, tc := range map[string]struct {
		tenant string
		want   tenantRows
	}{
		"idle":   {idle, tenantRows{contexts: 0, items: 0, pending: idleN, expired: idleN, fulfilled: idleN}},
		"active": {active, tenantRows{contexts: activeN, items: 2 * activeN, pending: activeN, expired: activeN, fulfilled: activeN}},
		"fresh":  {fresh, tenantRows{contexts: freshN, items: 2 * freshN, pending: freshN, expired: freshN, fulfilled: freshN}},
	} {
		if got := rowsOf(t, pool, tc.tenant); got != tc.want {
			t.Errorf("%s conversations after the sweeps: %+v, want %+v", name, got, tc.want)
		}
	}
	// Turns and conversations are history, not engine memory: all kept.
	if n := count(t, pool, `SELECT count(*) FROM conversations WHERE $1::text <> ''`, "all"); n != idleN+activeN+freshN {
		t.Errorf("%d conversations left, want all %d", n, idleN+activeN+freshN)
	}

	// Nothing is left to do.
	again, err := retention.Sweep(context.Background(), pool, cfg)
	if err != nil || again != (retention.Counts{}) {
		t.Errorf("third sweep = %+v, %v; want nothing changed", again, err)
	}
}
