// Command genjson writes api/openapi.json, the document the server embeds
// and serves, from api/openapi.yaml: run `go generate ./api` after editing
// the YAML. Only the generator parses YAML; the server does not link it.
// With -out31 it also writes the OpenAPI 3.1 rendition for the client
// generators that do not read 3.2 yet.
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
	out31 := flag.String("out31", "", "where to write the OpenAPI 3.1 rendition (none when empty)")
	flag.Parse()
	if err := convert(*in, *out, *out31); err != nil {
		fmt.Fprintln(os.Stderr, "genjson:", err)
		os.Exit(1)
	}
}

func convert(from, to, to31 string) error {
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
	if err := os.WriteFile(to, append(b, '\n'), 0o644); err != nil {
		return err
	}
	if to31 == "" {
		return nil
	}
	b31, err := json.Marshal(downgrade(doc))
	if err != nil {
		return err
	}
	return os.WriteFile(to31, append(b31, '\n'), 0o644)
}

// downgrade renders the document as OpenAPI 3.1 for client generators.
// The one 3.2 feature it uses is a stream's itemSchema (each event's
// schema); 3.1 can say only that the body is text, so the item schema
// moves to the x-itemSchema extension, which generators ignore and readers
// can still find. An object's "any other field may hold any JSON"
// (additionalProperties: AnyJSON, propertyNames: Text) is left unsaid, as
// JSON Schema allows other fields anyway: generators then type only the
// fields the API reads, so a misspelt field fails to compile.
func downgrade(doc any) any {
	switch v := doc.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, val := range v {
			if isRef(val, "AnyJSON") && k == "additionalProperties" || isRef(val, "Text") && k == "propertyNames" {
				if _, isObject := v["properties"]; isObject {
					continue
				}
			}
			out[k] = downgrade(val)
		}
		if version, ok := out["openapi"].(string); ok && version >= "3.2" {
			out["openapi"] = "3.1.1"
		}
		if item, ok := out["itemSchema"]; ok {
			delete(out, "itemSchema")
			out["x-itemSchema"] = item
			if _, has := out["schema"]; !has {
				out["schema"] = map[string]any{"type": "string", "description": "a stream of events; x-itemSchema describes each"}
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, val := range v {
			out[i] = downgrade(val)
		}
		return out
	default:
		return v
	}
}

// isRef reports whether v is {"$ref": "#/components/schemas/<name>"}.
func isRef(v any, name string) bool {
	m, ok := v.(map[string]any)
	return ok && len(m) == 1 && m["$ref"] == "#/components/schemas/"+name
}
