package pgpool_test

import (
	"context"
	"io/fs"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/jackc/pgx/v5"

	"regintel/migrations"
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

	first, err := pgpool.ApplyMigrations(ctx, pool)
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	if !slices.Equal(first.Applied, want) || first.Version != want[len(want)-1] {
		t.Fatalf("first run = %+v, want applied %v", first, want)
	}
	second, err := pgpool.ApplyMigrations(ctx, pool)
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
	outcomes := make([]pgpool.MigrationOutcome, processes)
	errs := make([]error, processes)
	var wg sync.WaitGroup
	for i := range processes {
		// A pool each, as separate processes would have.
		pool, err := pgpool.NewPool(ctx, pgpool.Config{URL: dbURL})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		wg.Go(func() { outcomes[i], errs[i] = pgpool.ApplyMigrations(ctx, pool) })
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

func TestPoolIsLazyAndDoesNotPrepare(t *testing.T) {
	ctx := context.Background()
	// Nothing listens on port 1: building the pool must not connect.
	pool, err := pgpool.NewPool(ctx, pgpool.Config{URL: "postgres://nobody@127.0.0.1:1/none?sslmode=disable"})
	if err != nil {
		t.Fatalf("NewPool connected eagerly: %v", err)
	}
	defer pool.Close()
	cfg := pool.Config()
	if cfg.MaxConns != pgpool.DefaultMaxConns || cfg.MinConns != 0 {
		t.Errorf("pool size max=%d min=%d, want %d and 0", cfg.MaxConns, cfg.MinConns, pgpool.DefaultMaxConns)
	}
	if cfg.ConnConfig.DefaultQueryExecMode != pgx.QueryExecModeExec {
		t.Errorf("exec mode = %v, want exec (no named prepared statements)", cfg.ConnConfig.DefaultQueryExecMode)
	}
	cached, err := pgpool.NewPool(ctx, pgpool.Config{URL: "postgres://nobody@127.0.0.1:1/none?sslmode=disable", StatementCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cached.Close()
	if mode := cached.Config().ConnConfig.DefaultQueryExecMode; mode != pgx.QueryExecModeCacheStatement {
		t.Errorf("with the statement cache, exec mode = %v", mode)
	}
	if err := pool.Ping(ctx); err == nil {
		t.Error("ping to a closed port succeeded")
	}
}

// Against the real server: queries with parameters leave no named
// prepared statement on the session.
func TestNoServerSidePreparedStatements(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewPool(t, 1)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for range 3 {
		var n int
		if err := conn.QueryRow(ctx, "SELECT $1::int + 1", 41).Scan(&n); err != nil || n != 42 {
			t.Fatalf("query: %d, %v", n, err)
		}
	}
	var prepared int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_prepared_statements WHERE $1::int = 1", 1).Scan(&prepared); err != nil {
		t.Fatal(err)
	}
	if prepared != 0 {
		t.Errorf("%d named prepared statements left on the session", prepared)
	}
}

func TestIAMAuthRequiresTLS(t *testing.T) {
	creds := credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "")
	for _, mode := range []string{"disable", "allow", "prefer"} {
		_, err := pgpool.NewPool(context.Background(), pgpool.Config{
			URL:     "postgres://app@db.example.internal:5432/regintel?sslmode=" + mode,
			IAMAuth: true, Region: "eu-west-1", Credentials: creds,
		})
		if err == nil {
			t.Errorf("sslmode=%s with IAM auth was accepted", mode)
		}
	}
}

func TestIAMAuthMintsTokenBeforeConnect(t *testing.T) {
	ctx := context.Background()
	pool, err := pgpool.NewPool(ctx, pgpool.Config{
		URL:     "postgres://app@db.example.internal:5432/regintel?sslmode=require",
		IAMAuth: true, Region: "eu-west-1",
		Credentials: aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "")),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	cfg := pool.Config()
	if cfg.BeforeConnect == nil {
		t.Fatal("no BeforeConnect hook with IAM auth")
	}
	cc := cfg.ConnConfig.Copy()
	if err := cfg.BeforeConnect(ctx, cc); err != nil {
		t.Fatal(err)
	}
	token, err := url.Parse("https://" + cc.Password)
	if err != nil {
		t.Fatalf("token is not a presigned URL: %v", err)
	}
	q := token.Query()
	if token.Host != "db.example.internal:5432" || q.Get("Action") != "connect" || q.Get("DBUser") != "app" ||
		!strings.Contains(q.Get("X-Amz-Credential"), "eu-west-1/rds-db/aws4_request") {
		t.Errorf("token %q is not an rds-db connect token for app@db.example.internal:5432 in eu-west-1", cc.Password)
	}
}
