package tracing_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

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

// On, the spans go to the configured OTLP/HTTP receiver.
func TestOnExportsOverOTLPHTTP(t *testing.T) {
	var mu sync.Mutex
	var paths, types []string
	var bodies int
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		paths, types = append(paths, r.URL.Path), append(types, r.Header.Get("Content-Type"))
		bodies += len(b)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer receiver.Close()
	t.Cleanup(tracing.Uninstall)

	shutdown, err := tracing.Setup(context.Background(), tracing.Settings{Enabled: true, Endpoint: receiver.URL, Service: "chat"})
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
	mu.Lock()
	defer mu.Unlock()
	if len(paths) == 0 || paths[0] != "/v1/traces" || types[0] != "application/x-protobuf" || bodies == 0 {
		t.Fatalf("receiver saw paths %v types %v (%d bytes), want an OTLP/HTTP export to /v1/traces", paths, types, bodies)
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
