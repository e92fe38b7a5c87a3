package app

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"regintel/shared/config"
	"regintel/shared/dbsetup"
	"regintel/shared/pgpool/pgtest"
)

// syncBuffer collects log lines written from the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func postgresConfig(t *testing.T, dbURL string) config.Config {
	t.Helper()
	localConfig(t) // clears the settings the shell may have
	t.Setenv("DATABASE_URL", dbURL)
	cfg, err := config.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func readyz(t *testing.T, srv *httptest.Server) (int, map[string]string) {
	t.Helper()
	resp, err := http.Get(srv.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Checks map[string]string `json:"checks"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("readyz body %s: %v", raw, err)
	}
	return resp.StatusCode, body.Checks
}

// The chat server does not migrate: started locally on an empty database it
// says so at start and /readyz reports the database down, naming the fix.
func TestLocalStartOnAnUnmigratedDatabaseSaysSo(t *testing.T) {
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	a, err := Build(context.Background(), postgresConfig(t, pgtest.NewDatabase(t)), log)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	const hint = "database not migrated: run `make migrate` or invoke the migrate function"
	if !strings.Contains(logs.String(), hint) {
		t.Errorf("start logs do not say the database is not migrated:\n%s", logs.String())
	}
	srv := httptest.NewServer(a.Handler)
	defer srv.Close()
	before := strings.Count(logs.String(), hint)
	status, checks := readyz(t, srv)
	if status != http.StatusServiceUnavailable || checks["database"] != "down" {
		t.Fatalf("readyz = %d %v, want 503 with the database down", status, checks)
	}
	if strings.Count(logs.String(), hint) <= before {
		t.Errorf("readyz did not log why the database is down:\n%s", logs.String())
	}
}

// With migrations given (cmd/dev), a local start migrates an empty database
// and a chat turn is stored in it.
func TestWithMigrationsMigratesAtLocalStart(t *testing.T) {
	migrate := func(ctx context.Context, pool *pgxpool.Pool) error {
		_, err := dbsetup.ApplyMigrations(ctx, pool)
		return err
	}
	a, err := Build(context.Background(), postgresConfig(t, pgtest.NewDatabase(t)), quiet(), WithMigrations(migrate))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	srv := httptest.NewServer(a.Handler)
	defer srv.Close()
	if status, checks := readyz(t, srv); status != http.StatusOK || checks["database"] != "ok" {
		t.Fatalf("readyz = %d %v, want 200 with the database ok", status, checks)
	}
	resp, err := http.Post(srv.URL+"/chat", "application/json", strings.NewReader(`{"message":"How much VRT is due on an imported car?"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"status":"ok"`) {
		t.Fatalf("chat turn: %d\n%s", resp.StatusCode, body)
	}
	list, err := http.Get(srv.URL + "/conversations")
	if err != nil {
		t.Fatal(err)
	}
	defer list.Body.Close()
	listed, _ := io.ReadAll(list.Body)
	if list.StatusCode != http.StatusOK || !strings.Contains(string(listed), resp.Header.Get("X-Conversation-Id")) {
		t.Fatalf("conversations after the turn: %d %s (turn's id %q)", list.StatusCode, listed, resp.Header.Get("X-Conversation-Id"))
	}
}
