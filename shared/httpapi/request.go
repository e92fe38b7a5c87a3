package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"time"

	"regintel/shared/strictjson"
)

// MaxBodyBytes bounds a request body (256 KiB).
const MaxBodyBytes = 256 << 10

// decodeJSON reads a JSON body of at most MaxBodyBytes into v with the
// strict decoder (exact field names, no duplicate keys, no control
// characters), writing the matching error (415, 413, 400 naming the field)
// and returning false when it cannot.
// The body must arrive within the body read timeout (408 otherwise).
func (a *API) decodeJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", "send the body as application/json")
		return false
	}
	if r.ContentLength > MaxBodyBytes {
		writeError(w, http.StatusRequestEntityTooLarge, "body_too_large", "the body is over 256 KiB")
		return false
	}
	body, err := a.readBody(w, r)
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			writeError(w, http.StatusRequestTimeout, "body_timeout", "the body did not arrive in time")
			return false
		}
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, "body_too_large", "the body is over 256 KiB")
			return false
		}
		writeError(w, http.StatusBadRequest, "bad_request", "the body could not be read")
		return false
	}
	if err := strictjson.Decode(body, v); err != nil {
		var strict *strictjson.Error
		if errors.As(err, &strict) {
			writeError(w, http.StatusBadRequest, "invalid_request", strict.Error())
			return false
		}
		writeError(w, http.StatusBadRequest, "malformed_json", "the body is not valid JSON for this endpoint: "+jsonErrorText(err))
		return false
	}
	return true
}

// readBody reads the body under a read deadline, lifted again once the
// body is in, so a stream that follows is not cut. Under Lambda the body
// is already in memory and the deadline is not supported (nor needed).
func (a *API) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	rc := http.NewResponseController(w)
	deadline := rc.SetReadDeadline(time.Now().Add(a.bodyTimeout)) == nil
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		// The rest of the body is not waited for: the connection closes.
		w.Header().Set("Connection", "close")
		return nil, err
	}
	if deadline {
		_ = rc.SetReadDeadline(time.Time{})
	}
	return body, nil
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
