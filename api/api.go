// Package api holds the API's OpenAPI 3.1 document (openapi.yaml), embedded
// so the server can serve it and the tests can hold the server to it.
package api

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"go.yaml.in/yaml/v3"
)

// YAML is the OpenAPI document as written.
//
//go:embed openapi.yaml
var YAML []byte

var (
	jsonOnce sync.Once
	jsonDoc  []byte
	jsonErr  error
)

// JSON is the document converted to JSON once, as GET /openapi.json serves
// it.
func JSON() ([]byte, error) {
	jsonOnce.Do(func() {
		var doc any
		if err := yaml.Unmarshal(YAML, &doc); err != nil {
			jsonErr = fmt.Errorf("openapi.yaml: %w", err)
			return
		}
		jsonDoc, jsonErr = json.Marshal(doc)
	})
	return jsonDoc, jsonErr
}
