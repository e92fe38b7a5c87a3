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
	"regintel/shared/httpapi/reply"
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
// characters), returning the matching error (415, 413, 400 naming the
// field) when it cannot. The body must arrive within the body read timeout
// (408 otherwise).
func (a *API) decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	return a.decodeJSONUpTo(w, r, v, MaxBodyBytes)
}

// decodeJSONUpTo is decodeJSON with another bound.
func (a *API) decodeJSONUpTo(w http.ResponseWriter, r *http.Request, v any, limit int64) error {
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "application/json" {
		return reply.UnsupportedMedia
	}
	// JSON is UTF-8; a body declared in another charset would be misread.
	if charset, ok := params["charset"]; ok && !strings.EqualFold(charset, "utf-8") {
		return reply.UnsupportedCharset
	}
	tooLarge := reply.BodyTooLarge.With("the body is over " + sizeText(limit))
	if r.ContentLength > limit {
		return tooLarge
	}
	body, err := a.readBody(w, r, limit)
	var overLimit *http.MaxBytesError
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return reply.RequestTimeout
	case errors.As(err, &overLimit):
		return tooLarge
	case err != nil:
		return reply.BadRequest
	}
	if err := strictjson.Decode(body, v); err != nil {
		var strict *strictjson.Error
		if errors.As(err, &strict) {
			return reply.InvalidRequest.With(strict.Error())
		}
		return reply.MalformedJSON.With("the body is not valid JSON for this endpoint: " + jsonErrorText(err))
	}
	return nil
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

// requestedAsOf reads a chat request's optional asOf, refusing one that is
// not an ISO date; absent, it is zero.
func requestedAsOf(raw *string) (time.Time, error) {
	if raw == nil {
		return time.Time{}, nil
	}
	d, err := asof.ParseDate(*raw)
	if err != nil {
		return time.Time{}, reply.InvalidRequest.With(err.Error())
	}
	return d, nil
}
