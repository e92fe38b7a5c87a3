// Package tracing is the backend's OpenTelemetry tracing: the exporter a
// process installs at start (OTLP/HTTP with JSON, to the collector layer on
// Lambda), the spans of a turn's parts, and the trace context that rides in
// queue message attributes so a consumer's spans join the producer's trace.
// Under Lambda a unit of work's span hangs under the invocation's X-Ray
// segment, or links to it when the work continues a trace of its own.
//
// Off by default. When off the global provider stays OpenTelemetry's no-op
// one, and Start does not even allocate: a part's span is only started under
// a span that records.
package tracing

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Name is the instrumentation scope of every span the backend starts.
const Name = "regintel"

// DefaultEndpoint is where the ADOT collector layer listens for OTLP/HTTP.
const DefaultEndpoint = "http://localhost:4318"

// Settings say whether and where a process exports spans.
type Settings struct {
	Enabled  bool
	Endpoint string // base URL of an OTLP/HTTP receiver; empty: DefaultEndpoint
	Service  string // service.name of the spans: the function's name
	// SampleRatio (0 to 1) is the share of new traces recorded; a trace
	// continued from a caller, a message or Lambda keeps its decision.
	SampleRatio float64
	Log         *slog.Logger // for what the receiver says; nil: slog's default
}

// propagator writes and reads W3C trace context (traceparent, tracestate).
var propagator = propagation.TraceContext{}

// Setup installs the exporting provider when tracing is on and returns the
// function that flushes and stops it; when off it installs nothing.
func Setup(_ context.Context, s Settings) (shutdown func(context.Context) error, err error) {
	if !s.Enabled {
		return func(context.Context) error { return nil }, nil
	}
	endpoint := s.Endpoint
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	if !(s.SampleRatio >= 0 && s.SampleRatio <= 1) {
		return nil, fmt.Errorf("tracing: sample ratio %v is not between 0 and 1", s.SampleRatio)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(NewExporter(endpoint, ExporterOptions{Log: s.Log})),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(s.SampleRatio))),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", s.Service))),
	)
	Install(tp)
	return tp.Shutdown, nil
}

// installed is set while a provider other than the no-op one is in place.
var installed atomic.Bool

// Install makes tp the provider every span comes from (tests install one
// with an in-memory exporter).
func Install(tp trace.TracerProvider) {
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagator)
	installed.Store(true)
}

// Uninstall restores the no-op provider.
func Uninstall() {
	installed.Store(false)
	otel.SetTracerProvider(noop.NewTracerProvider())
}

// On reports whether spans are being recorded, so entry points can skip
// reading trace context and building span options when they are not.
func On() bool { return installed.Load() }

func tracer() trace.Tracer { return otel.Tracer(Name) }

// StartRoot starts the span of a unit of work a process receives (an HTTP
// request, a queue record): a child of parent's span context when it
// carries one, else of the Lambda invocation's X-Ray segment, else the
// root of a new trace. A span with a parent of its own links to the
// segment instead, so a consumer stays in the trace of the turn that
// queued its work and X-Ray still finds it from the invocation.
func StartRoot(parent context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	if !On() {
		return parent, trace.SpanFromContext(parent)
	}
	if segment, ok := LambdaSegment(parent); ok {
		if trace.SpanContextFromContext(parent).IsValid() {
			opts = append(opts[:len(opts):len(opts)], trace.WithLinks(trace.Link{SpanContext: segment}))
		} else {
			parent = trace.ContextWithRemoteSpanContext(parent, segment)
		}
	}
	return tracer().Start(parent, name, opts...)
}

// Start starts the span of a part of that work (a query, a model call, a
// publish). Without a recording span in ctx it returns ctx and a no-op span
// and costs nothing, so the parts need not know whether tracing is on.
func Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, parent
	}
	return parent.TracerProvider().Tracer(Name).Start(ctx, name, opts...)
}

// End records err on span (when not nil) and ends it.
func End(span trace.Span, err error) {
	Fail(span, err)
	span.End()
}

// Fail marks span failed with err (nil: nothing). The error's text goes in
// the span, so callers pass errors that quote no user text.
func Fail(span trace.Span, err error) {
	if err != nil && span.IsRecording() {
		span.RecordError(err)
		span.SetStatus(codes.Error, "")
	}
}

// Inject returns the trace context of ctx as key/value pairs for message
// attributes; nil when ctx has no valid span context.
func Inject(ctx context.Context) map[string]string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	carrier := propagation.MapCarrier{}
	propagator.Inject(ctx, carrier)
	return carrier
}

// Extract returns ctx carrying the remote span context found in attrs.
func Extract(ctx context.Context, attrs map[string]string) context.Context {
	if len(attrs) == 0 {
		return ctx
	}
	return propagator.Extract(ctx, propagation.MapCarrier(attrs))
}

// Flush exports the spans ended so far. On Lambda the environment freezes
// once an invocation returns, so every invocation flushes before it does.
func Flush(ctx context.Context) {
	if tp, ok := otel.GetTracerProvider().(*sdktrace.TracerProvider); ok {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if err := tp.ForceFlush(ctx); err != nil {
			slog.WarnContext(ctx, "tracing: spans not exported", "err", err)
		}
	}
}
