package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
)

// MaxBodyBytes bounds a request body (256 KiB).
const MaxBodyBytes = 256 << 10

// MaxUIMessagesBodyBytes bounds a POST /chat body in the UI message stream
// protocol (4 MiB): useChat sends the whole history by default, and the
// server reads only its last user message, so a long conversation must not
// be refused. It stays under the Function URL's 6 MB request limit.
const MaxUIMessagesBodyBytes = 4 << 20

// decodeJSON reads a JSON body of at most MaxBodyBytes into v, writing the
// matching error (415, 413, 400) and returning false when it cannot.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	return decodeJSONUpTo(w, r, v, MaxBodyBytes)
}

// decodeJSONUpTo is decodeJSON with another bound.
func decodeJSONUpTo(w http.ResponseWriter, r *http.Request, v any, limit int64) bool {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", "send the body as application/json")
		return false
	}
	tooLarge := "the body is over " + sizeText(limit)
	if r.ContentLength > limit {
		writeError(w, http.StatusRequestEntityTooLarge, "body_too_large", tooLarge)
		return false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var overLimit *http.MaxBytesError
		if errors.As(err, &overLimit) {
			writeError(w, http.StatusRequestEntityTooLarge, "body_too_large", tooLarge)
			return false
		}
		writeError(w, http.StatusBadRequest, "bad_request", "the body could not be read")
		return false
	}
	if err := json.Unmarshal(body, v); err != nil {
		writeError(w, http.StatusBadRequest, "malformed_json", "the body is not valid JSON for this endpoint: "+jsonErrorText(err))
		return false
	}
	return true
}

// sizeText writes a body limit as people read it: "256 KiB", "4 MiB".
func sizeText(bytes int64) string {
	if bytes >= 1<<20 && bytes%(1<<20) == 0 {
		return strconv.FormatInt(bytes>>20, 10) + " MiB"
	}
	return strconv.FormatInt(bytes>>10, 10) + " KiB"
}

func jsonErrorText(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return "field " + typeErr.Field + " has the wrong type"
	}
	var syntaxErr *json.SyntaxError
	if errors.As(err, &syntaxErr) {
		return "syntax error"
	}
	return "unexpected content"
}
