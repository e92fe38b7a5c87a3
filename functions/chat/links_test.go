package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The chat function's package size and cold start grow with what it links.
// These stay out of it: migrations run in the migrate function (and in
// `make dev`), the OpenAPI document is embedded as JSON generated from its
// YAML, traces are exported over HTTP, and tokens are counted with one
// vocabulary.
var notLinkedByChat = []string{
	"github.com/pressly/goose",
	"go.yaml.in/yaml",
	"gopkg.in/yaml",
	// TODO(merge): enable once the tracing change that drops the gRPC
	// exporter is merged.
	// "google.golang.org/grpc",
	// "google.golang.org/protobuf",
}

// Who may import text/template in the chat function: the standard library
// (html/template) and the prompt sheets. Any other importer is a library
// that came in with something the function does not need.
var textTemplateImporters = map[string]bool{"html/template": true, "regintel/shared/prompt": true}

func TestChatLinksOnlyWhatATurnNeeds(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-tags", "lambda.norpc",
		"-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	packages := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		packages++
		for _, banned := range notLinkedByChat {
			if pkg == banned || strings.HasPrefix(pkg, banned+"/") {
				t.Errorf("the chat function links %s", pkg)
			}
		}
		for _, imp := range imports {
			if imp == "text/template" && !textTemplateImporters[pkg] {
				t.Errorf("%s imports text/template into the chat function", pkg)
			}
		}
	}
	if packages < 100 {
		t.Fatalf("go list listed only %d packages:\n%s", packages, out)
	}
}

// Each token vocabulary is a table of megabytes; only cl100k_base is linked.
func TestChatLinksOneTokenVocabulary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "bootstrap")
	cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	symbols, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	vocabularies := map[string]bool{}
	for _, s := range symbols {
		for _, v := range []string{"cl100k", "o200k", "p50k", "r50k"} {
			if strings.Contains(strings.ToLower(s.Name), v) {
				vocabularies[v] = true
			}
		}
	}
	if !vocabularies["cl100k"] || len(vocabularies) != 1 {
		t.Fatalf("vocabularies linked: %v, want cl100k only", vocabularies)
	}
}
