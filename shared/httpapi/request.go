package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"regintel/shared/asof"
	"regintel/shared/strictjson"
)

// MaxBodyBytes bounds a request body (256 KiB).
const MaxBodyBytes = 256 << 10

// MaxUIMessagesBodyBytes bounds a POST /chat body in the UI message stream
// protocol (4 MiB): useChat sends the whole history by default, and the
// server reads only its last user message, so a long conversation must not
// be refused. It stays under the Function URL's 6 MB request limit.
const MaxUIMessagesBodyBytes = 4 << 20

// decodeJSON reads a JSON body of at most MaxBodyBytes into v with the
// strict decoder (exact field names, no duplicate keys, no control
// characters), writing the matching error (415, 413, 400 naming the field)
// and returning false when it cannot.
// The body must arrive within the body read timeout (408 otherwise).
func (a *API) decodeJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	return a.decodeJSONUpTo(w, r, v, MaxBodyBytes)
}

// decodeJSONUpTo is decodeJSON with another bound.
func (a *API) decodeJSONUpTo(w http.ResponseWriter, r *http.Request, v any, limit int64) bool {
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", "send the body as application/json")
		return false
	}
	// JSON is UTF-8; a body declared in another charset would be misread.
	if charset, ok := params["charset"]; ok && !strings.EqualFold(charset, "utf-8") {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_charset", "send the body as UTF-8 (charset=utf-8, or no charset)")
		return false
	}
	tooLarge := "the body is over " + sizeText(limit)
	if r.ContentLength > limit {
		writeError(w, http.StatusRequestEntityTooLarge, "body_too_large", tooLarge)
		return false
	}
	body, err := a.readBody(w, r, limit)
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			writeError(w, http.StatusRequestTimeout, "body_timeout", "the body did not arrive in time")
			return false
		}
		var overLimit *http.MaxBytesError
		if errors.As(err, &overLimit) {
			writeError(w, http.StatusRequestEntityTooLarge, "body_too_large", tooLarge)
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

// sizeText writes a body limit as people read it: "256 KiB", "4 MiB".
func sizeText(bytes int64) string {
	if bytes >= 1<<20 && bytes%(1<<20) == 0 {
		return strconv.FormatInt(bytes>>20, 10) + " MiB"
	}
	return strconv.FormatInt(bytes>>10, 10) + " KiB"
}

// readBody reads at most limit bytes of the body under a read deadline,
// lifted again once the body is in, so a stream that follows is not cut.
// Under Lambda the body is already in memory and the deadline is not
// supported (nor needed).
func (a *API) readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	rc := http.NewResponseController(w)
	deadline := rc.SetReadDeadline(time.Now().Add(a.bodyTimeout)) == nil
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
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

// requestedAsOf reads a chat request's optional asOf, answering 400 when it
// is not an ISO date; absent, it is zero.
func requestedAsOf(w http.ResponseWriter, raw *string) (time.Time, bool) {
	if raw == nil {
		return time.Time{}, true
	}
	d, err := asof.ParseDate(*raw)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return time.Time{}, false
	}
	return d, true
}
