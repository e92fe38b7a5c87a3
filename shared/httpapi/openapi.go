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
