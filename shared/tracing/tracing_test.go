package tracing_test

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"regintel/shared/tracing"
)

// Off, nothing is installed, the parts' spans cost no allocation and no
// trace context leaves the process.
func TestOffInstallsNothingAndCostsNothing(t *testing.T) {
	tracing.Uninstall()
	shutdown, err := tracing.Setup(context.Background(), tracing.Settings{Enabled: false, Endpoint: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(context.Background())
	if _, sdk := otel.GetTracerProvider().(*sdktrace.TracerProvider); sdk {
		t.Fatal("tracing off installed an exporting provider")
	}
	ctx, root := tracing.StartRoot(context.Background(), "request")
	defer root.End()
	if root.IsRecording() || tracing.Inject(ctx) != nil {
		t.Fatal("tracing off records spans or propagates a trace context")
	}
	allocs := testing.AllocsPerRun(100, func() {
		reqCtx, req := tracing.StartRoot(context.Background(), "request")
		_, span := tracing.Start(reqCtx, "graph read")
		tracing.End(span, nil)
		req.End()
	})
	if allocs != 0 {
		t.Fatalf("a request's and a part's span allocate %v times with tracing off, want 0", allocs)
	}
}

// On, the spans go to the configured OTLP/HTTP receiver as JSON, the part
// under the request.
func TestOnExportsOverOTLPHTTP(t *testing.T) {
	rc := newReceiver(t, nil)
	t.Cleanup(tracing.Uninstall)
	shutdown, err := tracing.Setup(context.Background(), tracing.Settings{Enabled: true, Endpoint: rc.URL, Service: "chat", SampleRatio: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, root := tracing.StartRoot(context.Background(), "request")
	_, part := tracing.Start(ctx, "graph read")
	part.End()
	root.End()
	tracing.Flush(context.Background())
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := rc.requests()
	if len(got) == 0 || got[0].Path != "/v1/traces" || got[0].ContentType != "application/json" {
		t.Fatalf("receiver saw %+v, want an OTLP/HTTP JSON export to /v1/traces", got)
	}
	spans := exportedSpans(t, got)
	if len(spans) != 2 || spans["graph read"].ParentSpanId == nil ||
		!bytes.Equal(spans["graph read"].ParentSpanId, spans["request"].SpanId) || spans["request"].ParentSpanId != nil {
		t.Fatalf("exported %v, want the part under the request", spans)
	}
}

// exportedSpans decodes every request and returns the spans by name, with
// the service each came from in its attributes' place checked.
func exportedSpans(t *testing.T, got []receivedExport) map[string]*tracepb.Span {
	t.Helper()
	spans := map[string]*tracepb.Span{}
	for _, r := range got {
		for _, rs := range decodeOTLPJSON(t, r.Body).ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					spans[s.Name] = s
				}
			}
		}
	}
	return spans
}

// A ratio outside 0 to 1 is refused.
func TestSetupRefusesABadSampleRatio(t *testing.T) {
	t.Cleanup(tracing.Uninstall)
	for _, ratio := range []float64{-0.1, 1.5, math.NaN()} {
		if _, err := tracing.Setup(context.Background(), tracing.Settings{Enabled: true, SampleRatio: ratio}); err == nil {
			t.Errorf("ratio %v accepted", ratio)
		}
	}
}

// The ratio decides new traces only: Lambda's decision (Sampled=1 or 0)
// and a caller's are followed whatever the ratio.
func TestSamplingFollowsLambdaAndSamplesNewTracesByRatio(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ratio    float64
		header   string
		exported bool
	}{
		{"ratio 0, a new trace", 0, "", false},
		{"ratio 1, a new trace", 1, "", true},
		{"ratio 0, Lambda sampled", 0, xraySampled, true},
		{"ratio 1, Lambda not sampled", 1, strings.Replace(xraySampled, "Sampled=1", "Sampled=0", 1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := newReceiver(t, nil)
			t.Cleanup(tracing.Uninstall)
			shutdown, err := tracing.Setup(context.Background(), tracing.Settings{Enabled: true, Endpoint: rc.URL, Service: "chat", SampleRatio: tc.ratio})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if tc.header != "" {
				ctx = lambdaInvocation(ctx, tc.header)
			}
			_, root := tracing.StartRoot(ctx, "request")
			root.End()
			tracing.Flush(context.Background())
			_ = shutdown(context.Background())
			if spans := exportedSpans(t, rc.requests()); (len(spans) == 1) != tc.exported || len(spans) > 1 {
				t.Fatalf("exported %v, want the request exported: %v", spans, tc.exported)
			}
		})
	}
}

// A part's span hangs under the span in its context; the trace context
// survives the trip through message attributes.
func TestPartsNestAndContextRoundTrips(t *testing.T) {
	exporter := tracetest.NewInMemoryExporter()
	tracing.Install(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter)))
	t.Cleanup(tracing.Uninstall)
	ctx, root := tracing.StartRoot(context.Background(), "request")
	partCtx, part := tracing.Start(ctx, "sqs publish")
	attrs := tracing.Inject(partCtx)
	part.End()
	root.End()
	remote := trace.SpanContextFromContext(tracing.Extract(context.Background(), attrs))
	if !remote.IsRemote() || remote.TraceID() != root.SpanContext().TraceID() || remote.SpanID() != part.SpanContext().SpanID() {
		t.Fatalf("attributes %v carry %v, want the publish span", attrs, remote)
	}
	spans := exporter.GetSpans()
	if len(spans) != 2 || spans[0].Parent.SpanID() != root.SpanContext().SpanID() {
		t.Fatalf("spans %v: the part is not under the request", spans)
	}
}
