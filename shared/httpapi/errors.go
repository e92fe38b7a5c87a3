package httpapi

import (
	"net/http"

	"regintel/shared/httpapi/reply"
)

// errorBody is the JSON error every non-streamed failure returns.
type errorBody = reply.ErrorBody

// retryAfter is how many seconds a client should wait before trying again
// after an error that passes by itself.
var retryAfter = map[string]string{
	// The answer streaming in the conversation ends, or its lease lapses.
	"turn_in_progress": "2",
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	if seconds, ok := retryAfter[code]; ok {
		w.Header().Set("Retry-After", seconds)
	}
	reply.Error(w, status, code, message)
}

func writeJSON(w http.ResponseWriter, status int, v any) { reply.JSON(w, status, v) }
