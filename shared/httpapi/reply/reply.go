// Package reply writes the API's JSON responses, shared by httpapi and its
// compatibility routes so both fail in one shape.
package reply

import (
	"encoding/json"
	"net/http"
)

// ErrorBody is the JSON error every non-streamed failure returns.
type ErrorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Error sends {"error":{"code","message"}} with status; every route fails
// in this shape.
func Error(w http.ResponseWriter, status int, code, message string) {
	var body ErrorBody
	body.Error.Code = code
	body.Error.Message = message
	JSON(w, status, body)
}

// JSON sends v as a JSON response that is never cached.
func JSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
