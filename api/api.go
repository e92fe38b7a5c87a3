// Package api holds the API's OpenAPI 3.2 document, written in openapi.yaml
// and served as openapi.json, which `go generate ./api` derives from it. The
// JSON is embedded, so the server does not link a YAML parser.
package api

import _ "embed"

//go:generate go run ./internal/genjson -out31 openapi-3.1.json

//go:embed openapi.json
var document []byte

// JSON is the document as GET /openapi.json serves it. It cannot fail (the
// conversion happens at generate time); the error is kept for its callers.
func JSON() ([]byte, error) { return document, nil }

//go:embed openapi-3.1.json
var document31 []byte

// JSON31 is the OpenAPI 3.1 rendition of the document, served as
// /openapi-3.1.json for client generators that do not read 3.2.
func JSON31() []byte { return document31 }
