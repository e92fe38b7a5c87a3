package api_test

import (
	"context"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"regintel/api"
)

func TestDocumentIsValidOpenAPI31(t *testing.T) {
	raw, err := api.JSON()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi %q, want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
}
