package api_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"regintel/api"
)

// openapi.json is what the generator makes of openapi.yaml: the server
// serves the JSON, people edit the YAML. That the document is valid
// OpenAPI 3.2 is checked in api/contract.
func TestJSONMatchesYAML(t *testing.T) {
	fresh := filepath.Join(t.TempDir(), "openapi.json")
	fresh31 := filepath.Join(t.TempDir(), "openapi-3.1.json")
	if out, err := exec.Command("go", "run", "./internal/genjson", "-out", fresh, "-out31", fresh31).CombinedOutput(); err != nil {
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
	want31, err := os.ReadFile(fresh31)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(api.JSON31(), want31) {
		t.Fatal("openapi-3.1.json differs from openapi.yaml; run go generate ./api")
	}
}

// The 3.1 rendition says 3.1 and holds nothing of 3.2 (itemSchema), while
// keeping every stream's event schema under an extension.
func TestThreeOneRendition(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(api.JSON31(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["openapi"] != "3.1.1" {
		t.Fatalf("openapi = %v", doc["openapi"])
	}
	raw := string(api.JSON31())
	whole, _ := api.JSON()
	if strings.Contains(raw, `"itemSchema"`) || strings.Count(raw, `"x-itemSchema"`) != strings.Count(string(whole), `"itemSchema"`) {
		t.Fatal("itemSchema left in, or an event schema lost")
	}
}
