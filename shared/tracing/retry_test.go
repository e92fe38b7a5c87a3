package tracing_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"regintel/shared/tracing"
)

// quickRetry retries at once, so the tests count requests, not time.
var quickRetry = tracing.Retry{Attempts: 4, FirstWait: time.Microsecond, MaxWait: time.Minute, MaxResponse: 1 << 10}

func oneSpan(t *testing.T) []sdktrace.ReadOnlySpan {
	t.Helper()
	recorder := tracetest.NewSpanRecorder()
	_, span := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder)).Tracer(tracing.Name).Start(context.Background(), "request")
	span.End()
	return recorder.Ended()
}

// answers replies with the given statuses in turn, then 200; a header
// value, when given, goes with every failure.
func answers(header, value string, statuses ...int) func(int, http.ResponseWriter) {
	return func(n int, w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		if n > len(statuses) {
			_, _ = w.Write([]byte(`{}`))
			return
		}
		if header != "" {
			w.Header().Set(header, value)
		}
		w.WriteHeader(statuses[n-1])
		_, _ = w.Write([]byte(`{"code":14,"message":"collector busy"}`))
	}
}

// 429, 502, 503 and 504 are retried with the same request, up to the
// bounded number of tries; every other failure status is not retried.
func TestExporterRetriesOnlyWhatTheSpecificationSays(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answer   func(int, http.ResponseWriter)
		requests int
		ok       bool
	}{
		{"throttled and unavailable, then accepted", answers("", "", 429, 502, 503), 4, true},
		{"gateway timeout every time", answers("", "", 504, 504, 504, 504, 504), 4, false},
		{"bad request", answers("", "", 400), 1, false},
		{"unauthorised", answers("", "", 401), 1, false},
		{"not found", answers("", "", 404), 1, false},
		{"internal error", answers("", "", 500), 1, false},
		{"Retry-After zero", answers("Retry-After", "0", 503), 2, true},
		{"Retry-After in the past", answers("Retry-After", "Mon, 02 Jan 2006 15:04:05 GMT", 429), 2, true},
		{"Retry-After longer than the exporter waits", answers("Retry-After", "3600", 429), 1, false},
		{"Retry-After date too far ahead", answers("Retry-After", time.Now().Add(2*time.Hour).UTC().Format(http.TimeFormat), 503), 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := newReceiver(t, tc.answer)
			err := tracing.NewExporter(rc.URL, tracing.ExporterOptions{Retry: quickRetry}).ExportSpans(context.Background(), oneSpan(t))
			got := rc.requests()
			if len(got) != tc.requests || (err == nil) != tc.ok {
				t.Fatalf("%d requests, err %v; want %d requests, success %v", len(got), err, tc.requests, tc.ok)
			}
			for _, r := range got[1:] {
				if !bytes.Equal(r.Body, got[0].Body) {
					t.Fatal("a retry sent other data than the first try")
				}
			}
			if !tc.ok && tc.requests == 1 && !strings.Contains(err.Error(), "collector busy") {
				t.Errorf("error %q does not quote the receiver's status message", err)
			}
		})
	}
}

// A receiver that drops the connection without answering is retried.
func TestExporterRetriesWhenNoResponseCame(t *testing.T) {
	rc := newReceiver(t, func(n int, w http.ResponseWriter) {
		if n < 3 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	})
	err := tracing.NewExporter(rc.URL, tracing.ExporterOptions{Retry: quickRetry}).ExportSpans(context.Background(), oneSpan(t))
	if n := len(rc.requests()); err != nil || n != 3 {
		t.Fatalf("%d requests, err %v; want the third to succeed", n, err)
	}
}

// A retry that could not happen before the context ends is not tried.
func TestExporterStopsRetryingWhenTheContextHasNoTimeLeft(t *testing.T) {
	rc := newReceiver(t, answers("", "", 503, 503))
	slow := tracing.Retry{Attempts: 4, FirstWait: time.Hour, MaxWait: 2 * time.Hour, MaxResponse: 1 << 10}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := tracing.NewExporter(rc.URL, tracing.ExporterOptions{Retry: slow}).ExportSpans(ctx, oneSpan(t))
	if n := len(rc.requests()); err == nil || n != 1 || !strings.Contains(err.Error(), "no time left") {
		t.Fatalf("%d requests, err %v; want one and an error", n, err)
	}
}

// A partial success is logged with what the receiver rejected and not
// retried; the count may come as a string or a number.
func TestExporterLogsPartialSuccess(t *testing.T) {
	for _, rejected := range []string{`"2"`, `2`} {
		rc := newReceiver(t, func(_ int, w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"partialSuccess":{"rejectedSpans":` + rejected + `,"errorMessage":"span name missing"}}`))
		})
		var logs bytes.Buffer
		exp := tracing.NewExporter(rc.URL, tracing.ExporterOptions{Retry: quickRetry, Log: slog.New(slog.NewJSONHandler(&logs, nil))})
		err := exp.ExportSpans(context.Background(), oneSpan(t))
		if n := len(rc.requests()); err != nil || n != 1 {
			t.Fatalf("%d requests, err %v; want one, accepted", n, err)
		}
		if !strings.Contains(logs.String(), `"rejected_spans":2`) || !strings.Contains(logs.String(), "span name missing") {
			t.Fatalf("partial success %s logged as %q", rejected, logs.String())
		}
	}
}

// After Shutdown nothing is sent.
func TestExporterSendsNothingAfterShutdown(t *testing.T) {
	rc := newReceiver(t, nil)
	exp := tracing.NewExporter(rc.URL, tracing.ExporterOptions{})
	if err := exp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := exp.ExportSpans(context.Background(), oneSpan(t)); err == nil || len(rc.requests()) != 0 {
		t.Fatalf("export after shutdown: err %v, %d requests", err, len(rc.requests()))
	}
}
