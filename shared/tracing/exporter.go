package tracing

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Exporter sends spans to an OTLP/HTTP receiver as JSON. It stands in for
// the official exporter, which links protobuf and gRPC into every binary
// for an encoding the receivers accept in JSON as well.
type Exporter struct {
	url    string
	client *http.Client
	retry  Retry
	log    *slog.Logger
	closed atomic.Bool
}

// ExporterOptions are the exporter's HTTP client (nil: http.DefaultClient),
// retries (zero: DefaultRetry) and logger (nil: slog's default).
type ExporterOptions struct {
	Client *http.Client
	Retry  Retry
	Log    *slog.Logger
}

// Retry bounds how often an export is retried after a response that says
// try again, and how long to wait between tries when the receiver does not
// say (Retry-After).
type Retry struct {
	Attempts    int           // tries in all, the first included
	FirstWait   time.Duration // doubled after each try, with jitter
	MaxWait     time.Duration // longest wait; a longer Retry-After ends the export
	MaxResponse int64         // bytes of a response body read
}

// DefaultRetry suits a collector in the same execution environment: a few
// quick tries, all inside the invocation's flush.
var DefaultRetry = Retry{Attempts: 4, FirstWait: 100 * time.Millisecond, MaxWait: 2 * time.Second, MaxResponse: 64 << 10}

// NewExporter returns an exporter posting to endpoint's /v1/traces.
func NewExporter(endpoint string, o ExporterOptions) *Exporter {
	e := &Exporter{url: strings.TrimSuffix(endpoint, "/") + "/v1/traces", client: o.Client, retry: o.Retry, log: o.Log}
	if e.client == nil {
		e.client = http.DefaultClient
	}
	if e.retry == (Retry{}) {
		e.retry = DefaultRetry
	}
	if e.log == nil {
		e.log = slog.Default()
	}
	return e
}

var errShutDown = errors.New("tracing: exporter shut down")

// ExportSpans sends spans in one request, retried as the OTLP/HTTP
// specification says: on 429, 502, 503 and 504 and when no response came,
// never on any other status.
func (e *Exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if e.closed.Load() {
		return errShutDown
	}
	if len(spans) == 0 {
		return nil
	}
	body, err := json.Marshal(encodeSpans(spans))
	if err != nil {
		return fmt.Errorf("tracing: encode spans: %w", err)
	}
	wait := e.retry.FirstWait
	for attempt := 1; ; attempt++ {
		retryAfter, err := e.post(ctx, body)
		if err == nil || retryAfter < 0 || attempt >= e.retry.Attempts {
			return err
		}
		if retryAfter > e.retry.MaxWait {
			// Retrying sooner than the receiver asks would not be honouring it.
			return fmt.Errorf("%w; the receiver asks to wait %s", err, retryAfter)
		}
		if retryAfter == 0 {
			retryAfter = min(wait/2+rand.N(wait/2+1), e.retry.MaxWait)
			wait *= 2
		}
		if !sleep(ctx, retryAfter) {
			return fmt.Errorf("%w; no time left to retry", err)
		}
	}
}

// post sends one request. On failure retryAfter says what next: negative,
// give up; zero, retry after the exporter's own backoff; positive, retry
// after that long.
func (e *Exporter) post(ctx context.Context, body []byte) (retryAfter time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return -1, fmt.Errorf("tracing: export request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return -1, fmt.Errorf("tracing: export: %w", err)
		}
		return 0, fmt.Errorf("tracing: export: %w", err)
	}
	defer resp.Body.Close()
	reply, _ := io.ReadAll(io.LimitReader(resp.Body, e.retry.MaxResponse))
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		e.logPartialSuccess(ctx, resp.Header.Get("Content-Type"), reply)
		return 0, nil
	case code == http.StatusTooManyRequests || code == http.StatusBadGateway ||
		code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout:
		return parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()), fmt.Errorf("tracing: export: %s%s", resp.Status, statusMessage(reply))
	default:
		return -1, fmt.Errorf("tracing: export refused: %s%s", resp.Status, statusMessage(reply))
	}
}

// parseRetryAfter reads seconds or an HTTP date; zero when absent or not
// in the future.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
		return time.Duration(max(s, 0)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// exportResponse is what a receiver answers, with the count of spans it
// rejected as a string or a number (both are valid for 64-bit integers).
type exportResponse struct {
	PartialSuccess *struct {
		RejectedSpans json.Number `json:"rejectedSpans"`
		ErrorMessage  string      `json:"errorMessage"`
	} `json:"partialSuccess"`
}

// logPartialSuccess logs what a receiver rejected; it is not retried.
func (e *Exporter) logPartialSuccess(ctx context.Context, contentType string, reply []byte) {
	if len(reply) == 0 || !strings.HasPrefix(contentType, "application/json") {
		return
	}
	var r exportResponse
	if err := json.Unmarshal(reply, &r); err != nil || r.PartialSuccess == nil {
		return
	}
	rejected, _ := r.PartialSuccess.RejectedSpans.Int64()
	e.log.WarnContext(ctx, "tracing: the receiver rejected spans", "rejected_spans", rejected, "message", r.PartialSuccess.ErrorMessage)
}

// statusMessage is the message of a failure's Status body, when JSON.
func statusMessage(reply []byte) string {
	var st struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(reply, &st) != nil || st.Message == "" {
		return ""
	}
	return ": " + st.Message
}

// sleep waits d unless ctx would end first; false: it did not wait.
func sleep(ctx context.Context, d time.Duration) bool {
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Shutdown stops the exporter; it holds nothing to flush.
func (e *Exporter) Shutdown(context.Context) error {
	e.closed.Store(true)
	return nil
}
