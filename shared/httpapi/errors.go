package httpapi

import (
	"net/http"

	"regintel/shared/httpapi/reply"
)

// errorBody is the JSON error every non-streamed failure returns.
type errorBody = reply.ErrorBody

func writeError(w http.ResponseWriter, status int, code, message string) {
	reply.Error(w, status, code, message)
}

func writeJSON(w http.ResponseWriter, status int, v any) { reply.JSON(w, status, v) }
