package httpapi

import (
	"encoding/json"
	"net/http"
)

// errorBody is the JSON error every non-streamed failure returns.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// WriteError sends {"error":{"code","message"}} with status; every route,
// including those added through Options.Routes, fails in this shape.
func WriteError(w http.ResponseWriter, status int, code, message string) {
	var body errorBody
	body.Error.Code = code
	body.Error.Message = message
	WriteJSON(w, status, body)
}

// WriteJSON sends v as a JSON response that is never cached.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
