package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/aws/aws-lambda-go/lambda"

	"regintel/shared/app"
	"regintel/shared/config"
	"regintel/shared/dbsetup"
	"regintel/shared/dbsetup/graphsetup"
	"regintel/shared/graph/seeddata"
	"regintel/shared/pgpool"
	"regintel/shared/pgpool/pgtest"
	"regintel/shared/testenv"
)

// The function as wired from its environment, invoked with its sample event
// as the Lambda runtime would: Postgres migrated, graph schema applied on the
// Bolt test server; and a second invoke is a no-op.
func TestSampleEventMigratesPostgresAndTheGraph(t *testing.T) {
	t.Setenv("DATABASE_URL", pgtest.NewDatabase(t))
	t.Setenv("MEMGRAPH_URI", testenv.Require(t, "TEST_BOLT_URI"))
	t.Setenv("DB_SECRET_ARN", "")
	t.Setenv("AWS_LAMBDA_RUNTIME_API", "")
	event, err := os.ReadFile("../../events/migrate.json")
	if err != nil {
		t.Fatal(err)
	}
	h, err := wire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h.GraphSchema == nil {
		t.Fatal("graph schema step not wired although MEMGRAPH_URI is set")
	}
	invoker := lambda.NewHandler(h)
	for i := 0; i < 2; i++ {
		if _, err := invoker.Invoke(context.Background(), event); err != nil {
			t.Fatalf("invoke %d: %v", i+1, err)
		}
	}
	// The graph step itself, run directly, must succeed against the server.
	if err := h.GraphSchema(context.Background()); err != nil {
		t.Fatalf("graph schema: %v", err)
	}
}

// `make migrate`: outside Lambda the binary migrates once, prints the
// outcome and exits; run again it applies nothing.
func TestLocalRunMigratesOnceAndPrintsTheOutcome(t *testing.T) {
	testenv.BuildsBinary(t)
	dbURL := pgtest.NewDatabase(t)
	bin := filepath.Join(t.TempDir(), "migrate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	run := func() dbsetup.MigrationOutcome {
		t.Helper()
		cmd := exec.Command(bin)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "DATABASE_URL=" + dbURL}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("migrate: %v\n%s", err, out)
		}
		var outcome dbsetup.MigrationOutcome
		if err := json.Unmarshal(out, &outcome); err != nil {
			t.Fatalf("migrate printed %q: %v", out, err)
		}
		return outcome
	}
	first, second := run(), run()
	if len(first.Applied) == 0 || first.Version == 0 {
		t.Fatalf("first run applied nothing: %+v", first)
	}
	if len(second.Applied) != 0 || second.Version != first.Version {
		t.Fatalf("second run = %+v, want nothing applied at version %d", second, first.Version)
	}
	pool, err := pgpool.NewPool(context.Background(), pgpool.Config{URL: dbURL})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var conversations bool
	if err := pool.QueryRow(context.Background(), `SELECT to_regclass('public.conversations') IS NOT NULL`).Scan(&conversations); err != nil || !conversations {
		t.Fatalf("no conversations table after make migrate (%v)", err)
	}
}

// wire builds the function as main does, from the environment.
func wire(ctx context.Context) (*dbsetup.Handler, error) {
	cfg, err := config.FromEnv()
	if err != nil {
		return nil, err
	}
	return build(ctx, cfg, slog.Default())
}

// The deploy's graph step (MIGRATE_STEP=graph) against the Bolt test
// server: the schema and the shipped dataset, and a second run is
// harmless. Afterwards the dataset's concepts are in the graph.
func TestGraphStepAppliesTheSchemaAndLoadsTheDataset(t *testing.T) {
	uri := testenv.Require(t, "TEST_BOLT_URI")
	log := slog.New(slog.DiscardHandler)
	step := graphStep{cfg: config.Graph{URI: uri}, log: log}
	var first, second graphsetup.Outcome
	for i, out := range []*graphsetup.Outcome{&first, &second} {
		body, err := step.Invoke(context.Background(), []byte(`{}`))
		if err != nil {
			t.Fatalf("graph step %d: %v", i+1, err)
		}
		if err := json.Unmarshal(body, out); err != nil {
			t.Fatal(err)
		}
	}
	if !first.SchemaApplied || first.Concepts == 0 || first.Written == 0 || second != first {
		t.Errorf("graph step outcomes %+v then %+v, want the schema applied and the dataset written both times", first, second)
	}
	ds, err := seeddata.Load()
	if err != nil {
		t.Fatal(err)
	}
	store, closeGraph, err := app.OpenGraph(context.Background(), config.Graph{URI: uri}, log)
	if err != nil {
		t.Fatal(err)
	}
	defer closeGraph()
	ids := make([]string, 0, len(ds.Concepts))
	for _, c := range ds.Concepts {
		ids = append(ids, c.ID)
	}
	nodes, err := store.GetNodesByIDs(context.Background(), ids)
	if err != nil || len(nodes) != len(ids) {
		t.Errorf("after the graph step %d of the dataset's %d concepts are in the graph (%v)", len(nodes), len(ids), err)
	}
}
