package httpapi

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"regintel/shared/httpapi/reply"
)

// Time limits. A slow client or a stalled dependency costs a request its
// answer, never a connection or a pool slot held without end.
const (
	// DefaultBodyReadTimeout bounds reading a request body (408 after it).
	DefaultBodyReadTimeout = 10 * time.Second
	// DefaultRouteTimeout bounds a JSON route (504 after it). Streams are
	// not bounded by it: a turn streams for as long as the model writes.
	DefaultRouteTimeout = 10 * time.Second
	// readyCheckTimeout bounds each readiness check.
	readyCheckTimeout = 3 * time.Second
)

// ReadinessCheck is one dependency GET /readyz checks, such as the
// database.
type ReadinessCheck struct {
	// Name names the part in the answer ("database").
	Name  string
	Check func(ctx context.Context) error
}

// withRouteTimeout answers 504 with a JSON error when next has not
// answered within d. next's response is buffered and sent only when it
// finishes in time; its context is cancelled at the deadline, so the
// store call it waits on is abandoned too.
func (a *API) withRouteTimeout(next http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		buf := &bufferedResponse{header: http.Header{}, rc: http.NewResponseController(w)}
		done := make(chan struct{})
		panicked := make(chan any, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					panicked <- p
				}
			}()
			next.ServeHTTP(buf, r.WithContext(ctx))
			close(done)
		}()
		// The timer, not ctx: a client that goes away cancels ctx too, and
		// then the handler's own answer (a 408, say) still goes out.
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case p := <-panicked:
			panic(p)
		case <-done:
			buf.copyTo(w)
		case <-timer.C:
			buf.abandon()
			a.log.Warn("route timed out", "request_id", RequestID(r.Context()), "path", r.URL.Path, "timeout_ms", d.Milliseconds())
			writeError(w, reply.Timeout)
		}
	})
}

// bufferedResponse holds a JSON route's response until it is complete.
type bufferedResponse struct {
	rc        *http.ResponseController // the real response's, for the body read deadline
	mu        sync.Mutex
	header    http.Header
	status    int
	body      bytes.Buffer
	abandoned bool
}

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(status int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.status == 0 {
		b.status = status
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.abandoned {
		return 0, http.ErrHandlerTimeout
	}
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

// SetReadDeadline lets the body read deadline reach the connection.
func (b *bufferedResponse) SetReadDeadline(t time.Time) error { return b.rc.SetReadDeadline(t) }

func (b *bufferedResponse) abandon() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.abandoned = true
}

func (b *bufferedResponse) copyTo(w http.ResponseWriter) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k, v := range b.header {
		w.Header()[k] = v
	}
	if b.status == 0 {
		b.status = http.StatusOK
	}
	w.WriteHeader(b.status)
	_, _ = w.Write(b.body.Bytes())
}

// ready serves GET /readyz: 200 when every dependency answers, else 503
// naming the parts that are down. /healthz stays a liveness check: a
// process whose database is down is alive and should not be restarted.
func (a *API) ready(w http.ResponseWriter, r *http.Request) error {
	checks := map[string]string{}
	var down []string
	for _, c := range a.readiness {
		ctx, cancel := context.WithTimeout(r.Context(), readyCheckTimeout)
		err := c.Check(ctx)
		cancel()
		if err != nil {
			a.log.Warn("readiness check failed", "request_id", RequestID(r.Context()), "part", c.Name, "err", err)
			checks[c.Name] = "down"
			down = append(down, c.Name)
			continue
		}
		checks[c.Name] = "ok"
	}
	if len(down) > 0 {
		var body struct {
			errorBody
			Checks map[string]string `json:"checks"`
		}
		body.Error.Code = "not_ready"
		body.Error.Message = strings.Join(down, ", ") + " unavailable"
		body.Checks = checks
		writeJSON(w, http.StatusServiceUnavailable, body)
		return nil
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "checks": checks})
	return nil
}
