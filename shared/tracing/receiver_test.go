package tracing_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// receivedExport is one request an OTLP/HTTP receiver got.
type receivedExport struct {
	Path, ContentType string
	Body              []byte
}

// receiver is an OTLP/HTTP receiver on a test server that answers each
// request with answer (nil: 200 and an empty JSON response).
type receiver struct {
	URL    string
	mu     sync.Mutex
	got    []receivedExport
	answer func(n int, w http.ResponseWriter)
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter)) *receiver {
	t.Helper()
	rc := &receiver{answer: answer}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, receivedExport{Path: r.URL.Path, ContentType: r.Header.Get("Content-Type"), Body: body})
		n := len(rc.got)
		rc.mu.Unlock()
		if rc.answer != nil {
			rc.answer(n, w)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	rc.URL = srv.URL
	return rc
}

func (rc *receiver) requests() []receivedExport {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]receivedExport(nil), rc.got...)
}
