// Command genjson writes api/openapi.json, the document the server embeds
// and serves, from api/openapi.yaml: run `go generate ./api` after editing
// the YAML. Only the generator parses YAML; the server does not link it.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"
)

func main() {
	in := flag.String("in", "openapi.yaml", "the document as written")
	out := flag.String("out", "openapi.json", "the file to write")
	flag.Parse()
	if err := convert(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "genjson:", err)
		os.Exit(1)
	}
}

func convert(from, to string) error {
	src, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	var doc any
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	return os.WriteFile(to, append(b, '\n'), 0o644)
}
