package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With a graph the deploy runs the graph step after everything the graph is
// reached through; every graph function is told the dialect.
func TestGraphStepRunsAfterTheGraphIsReachable(t *testing.T) {
	p := prod(t)
	env := p.props("GraphSetupFunction")["Environment"].(map[string]any)["Variables"].(map[string]any)
	hash, err := graphSetupHash("..")
	if err != nil {
		t.Fatal(err)
	}
	if env["MIGRATE_STEP"] != "graph" || env["GRAPH_SETUP_HASH"] != hash || env["MEMGRAPH_SECRET_ARN"] == nil {
		t.Errorf("graph step env %s, want MIGRATE_STEP=graph, GRAPH_SETUP_HASH=%s and the secret", mustJSON(env), hash)
	}
	var trigger map[string]any
	for _, r := range p.resources("Custom::Trigger") {
		if refersTo(r["Properties"], "GraphSetupFunction") || strings.Contains(mustJSON(r["Properties"]), "GraphSetupFunction") {
			trigger = r
		}
	}
	if trigger == nil {
		t.Fatal("no trigger runs the graph step")
	}
	deps := mustJSON(trigger["DependsOn"])
	for _, want := range []string{"MemgraphRoute0", "MemgraphRoute1", "MigrateFunctionTrigger", "FunctionsSG"} {
		if !strings.Contains(deps, want) {
			t.Errorf("the graph step does not wait for %s: DependsOn %s", want, deps)
		}
	}
	for _, f := range deployedFunctions(p.stack.cfg, functionSpecs) {
		env := p.props(logicalID(f.Name))["Environment"].(map[string]any)["Variables"].(map[string]any)
		if f.Graph && env["GRAPH_DIALECT"] != "memgraph" {
			t.Errorf("%s reaches Memgraph with GRAPH_DIALECT %v, want memgraph", f.Name, env["GRAPH_DIALECT"])
		}
		if !f.Graph && env["MEMGRAPH_URI"] != nil {
			t.Errorf("%s has MEMGRAPH_URI but is no graph function", f.Name)
		}
	}
	if dev(t).props("GraphSetupFunction") != nil {
		t.Error("dev without a graph has a graph step")
	}
}

// The hash follows the schema and the dataset, and nothing else.
func TestGraphSetupHashFollowsTheSchemaAndDataset(t *testing.T) {
	root := t.TempDir()
	write := func(rel, body string) {
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("shared/graph/bolt/dialect.go", "package bolt // CREATE INDEX ON :Concept(id)")
	write("shared/graph/schema.go", "package graph")
	write("shared/graph/seeddata/seed.json", `{"concepts": []}`)
	hash := func() string {
		h, err := graphSetupHash(root)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	before := hash()
	write("shared/graph/seeddata/seeddata_test.go", "package seeddata")
	write("shared/graph/bolt/bolt.go", "package bolt")
	if hash() != before {
		t.Error("the hash changed with a test file or a file outside the schema and dataset")
	}
	write("shared/graph/seeddata/seed.json", `{"concepts": [{"id": "x"}]}`)
	afterData := hash()
	if afterData == before {
		t.Error("the hash did not change with the dataset")
	}
	write("shared/graph/bolt/dialect.go", "package bolt // CREATE INDEX ON :Concept(updated_at)")
	if hash() == afterData {
		t.Error("the hash did not change with the schema")
	}
}
