package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
)

// sseSink writes chat events as Server-Sent Events frames
// ("event: NAME\ndata: JSON\n\n"), one flush per frame so each delta leaves
// as soon as it arrives. Under lambdaurl every Write is already sent.
type sseSink struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	flusher http.Flusher
	started bool
}

func newSSESink(w http.ResponseWriter) *sseSink {
	f, _ := w.(http.Flusher)
	return &sseSink{w: w, flusher: f}
}

func (s *sseSink) start() {
	if s.started {
		return
	}
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
	s.w.WriteHeader(http.StatusOK)
}

// Event implements chat.Sink.
func (s *sseSink) Event(name string, data any) error {
	payload, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.start()
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, payload); err != nil {
		return err
	}
	if s.flusher != nil {
		s.flusher.Flush()
	}
	return nil
}
