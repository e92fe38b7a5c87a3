package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestRetentionSweepInTheDeployedStack runs the retention path as deployed:
// the dev template is synthesized, SAM's code computes the migrate and
// sweep functions' environments from it, and both bootstraps run under the
// runtime interface emulator against Postgres. Only where the database is
// is overridden (host, port, name, no TLS, no IAM token: the test server
// trusts local sign-ins); who signs in is the template's. Migrate signs in
// as the server's user in place of the master secret. A conversation idle
// past the retention period loses its context and supplied items; a fresh
// one keeps them.
func TestRetentionSweepInTheDeployedStack(t *testing.T) {
	python := samPython(t)
	adminURL := testDatabaseURL(t)
	bins := buildForEmulator(t)
	dbURL := freshDatabase(t, adminURL)
	envs := samEnvironments(t, python, dev(t), locationOnlyEnvFile(t, dbURL))
	migrateEnv, sweepEnv := envs["MigrateFunction"], envs["SweepFunction"]
	if sweepEnv["DB_USER"] == "" || sweepEnv["DB_USER"] != migrateEnv["DB_SWEEP_USER"] {
		t.Errorf("the sweep signs in as %q, migrate creates the sweep role %q: want the same role",
			sweepEnv["DB_USER"], migrateEnv["DB_SWEEP_USER"])
	}

	body, logs := runUnderEmulator(t, bins, "migrate", migrateEnv, []byte(`{}`))
	if !strings.Contains(string(body), `"version"`) {
		t.Fatalf("migrate answered %s\nlogs:\n%s", body, logs)
	}
	conn := connect(t, dbURL)
	days := sweepEnv["RETENTION_DAYS"]
	expired := seedConversation(t, conn, days+" days 1 hour")
	fresh := seedConversation(t, conn, "1 hour")

	event, err := os.ReadFile(filepath.Join("..", "events", "sweep-schedule.json"))
	if err != nil {
		t.Fatal(err)
	}
	body, logs = runUnderEmulator(t, bins, "sweep", sweepEnv, event)
	var out struct {
		RowsRemoved          *int64 `json:"rowsRemoved"`
		ExpiredRowsRemaining *int64 `json:"expiredRowsRemaining"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.RowsRemoved == nil || *out.RowsRemoved != 2 ||
		out.ExpiredRowsRemaining == nil || *out.ExpiredRowsRemaining != 0 {
		t.Errorf("sweep answered %s, want 2 rows removed and none expired left\nlogs:\n%s", body, logs)
	}
	if got := storedContext(t, conn, expired); got != 0 {
		t.Errorf("the conversation idle past %s days keeps %d context rows and items, want none", days, got)
	}
	if got := storedContext(t, conn, fresh); got != 2 {
		t.Errorf("the fresh conversation keeps %d context rows and items, want its context and its item", got)
	}
	if !strings.Contains(logs, `"RowsRemoved":2`) {
		t.Errorf("the sweep emitted no RowsRemoved metric of 2:\n%s", logs)
	}
}

// locationOnlyEnvFile overrides where the database is and nothing about
// who signs in, except migrate's master sign-in (the secret's stand-in).
func locationOnlyEnvFile(t *testing.T, dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	where := func() map[string]string {
		return map[string]string{"DB_HOST": u.Hostname(), "DB_PORT": u.Port(), "DB_NAME": strings.TrimPrefix(u.Path, "/"),
			"DB_SSLMODE": "disable", "DB_IAM_AUTH": "false", "LOG_FORMAT": "json"}
	}
	migrate := where()
	migrate["DB_USER"], migrate["DB_SECRET_ARN"] = u.User.Username(), ""
	b, _ := json.Marshal(map[string]map[string]string{"MigrateFunction": migrate, "SweepFunction": where()})
	path := filepath.Join(t.TempDir(), "env.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// freshDatabase creates an empty database on the test server, dropped
// when the test ends.
func freshDatabase(t *testing.T, adminURL string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "regintel_t_sweep_" + hex.EncodeToString(b)
	admin := connect(t, adminURL)
	if _, err := admin.Exec(context.Background(), "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), adminURL)
		if err != nil {
			t.Log(err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Log(err)
		}
	})
	u, _ := url.Parse(adminURL)
	u.Path = "/" + name
	return u.String()
}

func connect(t *testing.T, dbURL string) *pgx.Conn {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// seedConversation stores a conversation last active idle ago (a Postgres
// interval) with a context and one supplied item, and returns its id.
func seedConversation(t *testing.T, c *pgx.Conn, idle string) string {
	ctx := context.Background()
	var tenant, id string
	err := c.QueryRow(ctx, `INSERT INTO conversations (tenant_id, owner_id, created_at, updated_at)
		VALUES (gen_random_uuid(), 'owner', now() - $1::interval, now() - $1::interval) RETURNING tenant_id::text, id::text`, idle).Scan(&tenant, &id)
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`INSERT INTO conversation_context (tenant_id, conversation_id, context_json, updated_at)
		 VALUES ($1::uuid, $2::uuid, '{"activeNodeIds": []}', now() - $3::interval)`,
		`INSERT INTO supplied_context_items (tenant_id, conversation_id, key, content, created_at, last_used_at)
		 VALUES ($1::uuid, $2::uuid, 'k', 'text', now() - $3::interval, now() - $3::interval)`,
	} {
		if _, err := c.Exec(ctx, sql, tenant, id, idle); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	return id
}

// storedContext counts a conversation's context rows and supplied items.
func storedContext(t *testing.T, c *pgx.Conn, id string) int {
	var n int
	err := c.QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM conversation_context WHERE conversation_id = $1::uuid) +
		(SELECT count(*) FROM supplied_context_items WHERE conversation_id = $1::uuid)`, id).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
