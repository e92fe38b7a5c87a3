// Package api holds the API's OpenAPI 3.2 document, written in openapi.yaml
// and served as openapi.json, which `go generate ./api` derives from it. The
// JSON is embedded, so the server does not link a YAML parser.
package api

import _ "embed"

//go:generate go run ./internal/genjson

//go:embed openapi.json
var document []byte

// JSON is the document as GET /openapi.json serves it. It cannot fail (the
// conversion happens at generate time); the error is kept for its callers.
func JSON() ([]byte, error) { return document, nil }
