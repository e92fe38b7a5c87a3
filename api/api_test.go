package api_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"regintel/api"
)

// openapi.json is what the generator makes of openapi.yaml: the server
// serves the JSON, people edit the YAML. That the document is valid
// OpenAPI 3.2 is checked in api/contract.
func TestJSONMatchesYAML(t *testing.T) {
	fresh := filepath.Join(t.TempDir(), "openapi.json")
	if out, err := exec.Command("go", "run", "./internal/genjson", "-out", fresh).CombinedOutput(); err != nil {
		t.Fatalf("genjson: %v\n%s", err, out)
	}
	want, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatalf("%v: run go generate ./api", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("openapi.json differs from openapi.yaml; run go generate ./api")
	}
	if served, _ := api.JSON(); !bytes.Equal(served, got) {
		t.Fatal("the served document is not openapi.json")
	}
}
