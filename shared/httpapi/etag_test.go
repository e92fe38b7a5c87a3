package httpapi_test

import (
	"net/http"
	"testing"

	"regintel/shared/llm/llmtest"
)

// conditionalGet asks for path with If-None-Match: tag.
func (e *env) conditionalGet(path, tag string) chatResponse {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.server.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("If-None-Match", tag)
	return e.send(req)
}

// A client that already holds a response sends its ETag back and
// downloads nothing while it is unchanged; a change gives a new tag.
func TestUnchangedResponsesAre304WithTheirETag(t *testing.T) {
	e := newEnv(t, envOptions{demoPage: true})
	e.llm.Enqueue(llmtest.TextScript("It is 23%."))
	id := e.chat(map[string]any{"message": "What VAT applies?"}, nil).started(t, 1)
	for _, path := range []string{"/openapi.json", "/assets/app.js", "/assets/style.css", "/", "/conversations/" + id} {
		first := e.do(http.MethodGet, path, nil)
		tag := first.Header.Get("ETag")
		if first.Status != http.StatusOK || tag == "" {
			t.Errorf("GET %s: %d, ETag %q", path, first.Status, tag)
			continue
		}
		again := e.conditionalGet(path, `W/"other", `+tag)
		if again.Status != http.StatusNotModified || again.Body != "" || again.Header.Get("ETag") != tag {
			t.Errorf("GET %s with its ETag: %d, ETag %q, body %d bytes", path, again.Status, again.Header.Get("ETag"), len(again.Body))
		}
		if stale := e.conditionalGet(path, `"stale"`); stale.Status != http.StatusOK || stale.Body != first.Body {
			t.Errorf("GET %s with another ETag: %d", path, stale.Status)
		}
	}
	path := "/conversations/" + id
	before := e.do(http.MethodGet, path, nil).Header.Get("ETag")
	if renamed := e.do(http.MethodPatch, path, map[string]any{"title": "Renamed"}); renamed.Status != http.StatusOK {
		t.Fatalf("rename: %d %s", renamed.Status, renamed.Body)
	}
	if after := e.conditionalGet(path, before); after.Status != http.StatusOK || after.Header.Get("ETag") == before {
		t.Errorf("after a rename: %d, ETag %q (was %q)", after.Status, after.Header.Get("ETag"), before)
	}
}
