package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// writeCounter is a ResponseWriter that records each Write separately.
type writeCounter struct {
	*httptest.ResponseRecorder
	writes []string
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes = append(w.writes, string(p))
	return w.ResponseRecorder.Write(p)
}

// Held frames leave with the next flush or sent frame, in order, in one
// write; a flush with nothing held writes nothing.
func TestSSEWriterSendsHeldFramesInOneWrite(t *testing.T) {
	w := &writeCounter{ResponseRecorder: httptest.NewRecorder()}
	sse := newSSEWriter(w)
	for _, d := range []string{`{"text":"a"}`, `{"text":"b"}`, `{"text":"c"}`} {
		if err := sse.hold("", "message", []byte(d)); err != nil {
			t.Fatal(err)
		}
	}
	if len(w.writes) != 0 {
		t.Fatalf("held frames were written: %q", w.writes)
	}
	if err := sse.event("", "done", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	want := "event: message\ndata: {\"text\":\"a\"}\n\nevent: message\ndata: {\"text\":\"b\"}\n\n" +
		"event: message\ndata: {\"text\":\"c\"}\n\nevent: done\ndata: {}\n\n"
	if len(w.writes) != 1 || w.writes[0] != want {
		t.Fatalf("writes = %q, want one write %q", w.writes, want)
	}
	if err := sse.flush(); err != nil || len(w.writes) != 1 {
		t.Fatalf("an empty flush wrote: %q (%v)", w.writes, err)
	}
	if err := sse.hold("7", "", []byte(`x`)); err != nil {
		t.Fatal(err)
	}
	if err := sse.flush(); err != nil || len(w.writes) != 2 || w.writes[1] != "id: 7\ndata: x\n\n" {
		t.Fatalf("flush wrote %q (%v)", w.writes, err)
	}
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "text/event-stream; charset=utf-8" {
		t.Fatalf("status %d, content type %q", w.Code, w.Header().Get("Content-Type"))
	}
}
