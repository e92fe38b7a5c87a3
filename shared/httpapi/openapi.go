package httpapi

import (
	"fmt"
	"net/http"

	"regintel/api"
)

// openAPI serves GET /openapi.json: the API's OpenAPI document.
func (a *API) openAPI(w http.ResponseWriter, r *http.Request) error {
	doc, err := api.JSON()
	if err != nil {
		return fmt.Errorf("read the openapi document: %w", err)
	}
	writeTagged(w, r, "application/json", "no-cache", doc)
	return nil
}

// openAPI31 serves GET /openapi-3.1.json: the document as OpenAPI 3.1.
func (a *API) openAPI31(w http.ResponseWriter, r *http.Request) error {
	writeTagged(w, r, "application/json", "no-cache", api.JSON31())
	return nil
}
