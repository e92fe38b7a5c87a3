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

// writeError sends {"error":{"code","message"}} with status.
func writeError(w http.ResponseWriter, status int, code, message string) {
	var body errorBody
	body.Error.Code = code
	body.Error.Message = message
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// WriteError sends the JSON error body for routes added through
// Options.Routes, so every route fails in the same shape.
func WriteError(w http.ResponseWriter, status int, code, message string) {
	writeError(w, status, code, message)
}

// WriteJSON sends v as a JSON response that is never cached.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	writeJSON(w, status, v)
}

// MethodNotAllowed sends a JSON 405 naming the allowed methods. ServeMux's
// own 405 is plain text, and with the catch-all route it answers 404.
func MethodNotAllowed(w http.ResponseWriter, allowed ...string) {
	methodNotAllowed(w, allowed...)
}
