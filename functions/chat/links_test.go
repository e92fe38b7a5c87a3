package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"regintel/shared/testenv"
)

// The chat function's package size and cold start grow with what it links.
// These stay out of it: migrations run in the migrate function (and in
// `make dev`), the OpenAPI document is embedded as JSON generated from its
// YAML, and traces are exported as OTLP JSON (the official exporter's
// protobuf and gRPC were 3.8 MB).
var notLinkedByChat = []string{
	"github.com/pressly/goose",
	"go.yaml.in/yaml",
	"gopkg.in/yaml",
	"google.golang.org/grpc",
	"google.golang.org/protobuf",
}

func TestChatLinksOnlyWhatATurnNeeds(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-tags", "lambda.norpc",
		"-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	banned := func(pkg string) bool {
		for _, b := range notLinkedByChat {
			if pkg == b || strings.HasPrefix(pkg, b+"/") {
				return true
			}
		}
		return false
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, line := range lines {
		fields := strings.Fields(line)
		for _, imp := range fields[1:] {
			// Named by who brings it in, so the fix is plain.
			if banned(imp) && !banned(fields[0]) {
				t.Errorf("%s links %s into the chat function", fields[0], imp)
			}
		}
	}
	if len(lines) < 100 {
		t.Fatalf("go list listed only %d packages:\n%s", len(lines), out)
	}
}

// Each token vocabulary is a table of megabytes; only cl100k_base is linked.
func TestChatLinksOneTokenVocabulary(t *testing.T) {
	testenv.BuildsBinary(t)
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
