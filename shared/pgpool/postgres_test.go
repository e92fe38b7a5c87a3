package pgpool_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/jackc/pgx/v5"

	"regintel/shared/pgpool"
	"regintel/shared/pgpool/pgtest"
)

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
