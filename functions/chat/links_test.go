package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The chat function's package size and cold start grow with what it links.
// These stay out of it: migrations run in the migrate function (and in
// `make dev`), the OpenAPI document is embedded as JSON generated from its
// YAML, and traces are exported over HTTP.
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
