package httpapi

import (
	"net/http"

	"regintel/api"
)

// openAPI serves GET /openapi.json: the API's OpenAPI document.
func (a *API) openAPI(w http.ResponseWriter, r *http.Request) {
	doc, err := api.JSON()
	if err != nil {
		a.log.Error("openapi document unreadable", "request_id", RequestID(r.Context()), "err", err)
		writeError(w, http.StatusInternalServerError, "internal", "the API description could not be read")
		return
	}
	writeTagged(w, r, "application/json", "no-cache", doc)
}
