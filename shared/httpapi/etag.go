package httpapi

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// writeTagged sends body with a strong ETag derived from its bytes; a
// request whose If-None-Match names that tag gets 304 and no body, so a
// client that polls or reloads downloads nothing unchanged.
func writeTagged(w http.ResponseWriter, r *http.Request, contentType, cacheControl string, body []byte) {
	sum := sha256.Sum256(body)
	tag := `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
	h := w.Header()
	h.Set("ETag", tag)
	h.Set("Cache-Control", cacheControl)
	if matchesETag(r.Header.Get("If-None-Match"), tag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", contentType)
	_, _ = w.Write(body)
}

// writeTaggedJSON is writeTagged for a JSON 200 that only its owner may
// keep, and must check again before reusing.
func writeTaggedJSON(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode response: %w", err)
	}
	writeTagged(w, r, "application/json", "private, no-cache", append(body, '\n'))
	return nil
}

// matchesETag applies If-None-Match's weak comparison: "*" or any listed
// tag equal to tag once a W/ prefix is dropped.
func matchesETag(ifNoneMatch, tag string) bool {
	for _, candidate := range strings.Split(ifNoneMatch, ",") {
		candidate = strings.TrimPrefix(strings.TrimSpace(candidate), "W/")
		if candidate == "*" || candidate == tag {
			return true
		}
	}
	return false
}
