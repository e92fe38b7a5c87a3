package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The graph step is outside the deploy: no custom resource invokes a
// function that reaches Memgraph, so neither a first deploy before the
// peering's return route exists, nor a deploy that changes migrate's
// code, nor a rollback can fail on Memgraph. `make graph-setup` finds the
// step by its output; every graph function is told the dialect.
func TestGraphStepCannotFailADeploy(t *testing.T) {
	p := prod(t)
	env := p.props("GraphSetupFunction")["Environment"].(map[string]any)["Variables"].(map[string]any)
	hash, err := graphSetupHash("..")
	if err != nil {
		t.Fatal(err)
	}
	if env["MIGRATE_STEP"] != "graph" || env["GRAPH_SETUP_HASH"] != hash || env["MEMGRAPH_SECRET_ARN"] == nil {
		t.Errorf("graph step env %s, want MIGRATE_STEP=graph, GRAPH_SETUP_HASH=%s and the secret", mustJSON(env), hash)
	}
	graphFunctions := map[string]bool{}
	for _, f := range deployedFunctions(p.stack.cfg, functionSpecs) {
		env := p.props(logicalID(f.Name))["Environment"].(map[string]any)["Variables"].(map[string]any)
		if f.Graph && env["GRAPH_DIALECT"] != "memgraph" {
			t.Errorf("%s reaches Memgraph with GRAPH_DIALECT %v, want memgraph", f.Name, env["GRAPH_DIALECT"])
		}
		if !f.Graph && env["MEMGRAPH_URI"] != nil {
			t.Errorf("%s has MEMGRAPH_URI but is no graph function", f.Name)
		}
		if env["MEMGRAPH_URI"] != nil {
			graphFunctions[logicalID(f.Name)] = true
		}
	}
	if !graphFunctions["GraphSetupFunction"] {
		t.Fatal("the graph step does not reach Memgraph")
	}
	triggers := p.resources("Custom::MigrateStep")
	if len(triggers) == 0 {
		t.Fatal("prod has no trigger at all: the migrate step is gone too")
	}
	for id, r := range triggers {
		for fn := range graphFunctions {
			if refersTo(r["Properties"], fn) || strings.Contains(mustJSON(r["Properties"]), fn) {
				t.Errorf("trigger %s invokes %s, which reaches Memgraph: a deploy would fail while Memgraph is down", id, fn)
			}
		}
	}
	out, ok := p.json["Outputs"].(map[string]any)["GraphSetupFunctionName"].(map[string]any)
	if !ok || !refersTo(out["Value"], "GraphSetupFunction") {
		t.Errorf("no output GraphSetupFunctionName naming the graph step: %s", mustJSON(out))
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
