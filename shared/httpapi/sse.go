package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// DefaultKeepAlive is the longest silence on a stream before a keepalive
// comment, so proxies and load balancers keep it open.
const DefaultKeepAlive = 15 * time.Second

// sseWriter writes Server-Sent Events for every stream of the API (chat
// events, the UI message stream, the graph feed): a frame is sent at once,
// or held until the next flush or sent frame, so a burst leaves in one
// write; a ": keepalive" comment follows a silence. Under
// lambdaurl every Write is already sent; the flush matters under net/http.
type sseWriter struct {
	mu        sync.Mutex
	w         http.ResponseWriter
	rc        *http.ResponseController
	started   bool
	held      []byte // frames not written yet
	lastWrite time.Time
	err       error // the first failed write; later frames are not tried
}

func newSSEWriter(w http.ResponseWriter) *sseWriter {
	return &sseWriter{w: w, rc: http.NewResponseController(w)}
}

// start commits the 200 and the stream headers; headers set on the
// response before it are kept.
func (s *sseWriter) start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.startLocked()
}

func (s *sseWriter) startLocked() {
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

// event writes one frame, with whatever is held before it.
func (s *sseWriter) event(id, name string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = appendFrame(s.held, id, name, data)
	return s.sendLocked()
}

// hold keeps one frame until the next flush or sent frame.
func (s *sseWriter) hold(id, name string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.held = appendFrame(s.held, id, name, data)
	return nil
}

// flush sends the held frames.
func (s *sseWriter) flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.held) == 0 {
		return s.err
	}
	return s.sendLocked()
}

// appendFrame adds an optional id line, an optional event line and one
// data line (data is JSON, so it holds no newline).
func appendFrame(b []byte, id, name string, data []byte) []byte {
	if id != "" {
		b = append(b, "id: "...)
		b = append(b, id...)
		b = append(b, '\n')
	}
	if name != "" {
		b = append(b, "event: "...)
		b = append(b, name...)
		b = append(b, '\n')
	}
	b = append(b, "data: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

// retry tells the client how soon to reconnect.
func (s *sseWriter) retry(d time.Duration) error {
	return s.write(fmt.Sprintf("retry: %d\n\n", d.Milliseconds()))
}

func (s *sseWriter) write(frame string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeLocked(frame)
}

func (s *sseWriter) writeLocked(frame string) error {
	s.held = append(s.held, frame...)
	return s.sendLocked()
}

// sendLocked writes the held frames in one write and flushes them.
func (s *sseWriter) sendLocked() error {
	if s.err != nil {
		return s.err
	}
	s.startLocked()
	_, err := s.w.Write(s.held)
	s.held = s.held[:0]
	if err != nil {
		s.err = err
		return err
	}
	_ = s.rc.Flush()
	s.lastWrite = time.Now()
	return nil
}

// keepAlive sends a comment whenever the stream has been silent for every,
// until ctx ends or the returned stop is called. stop returns once the
// writer is no longer used, so the handler may return after it.
func (s *sseWriter) keepAlive(ctx context.Context, every time.Duration) (stop func()) {
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		timer := time.NewTimer(every)
		defer timer.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-done:
				return
			case <-timer.C:
			}
			s.mu.Lock()
			idle := time.Since(s.lastWrite)
			if idle >= every {
				if s.writeLocked(": keepalive\n\n") != nil {
					s.mu.Unlock()
					return
				}
				idle = 0
			}
			s.mu.Unlock()
			timer.Reset(every - idle)
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		<-exited
	}
}
