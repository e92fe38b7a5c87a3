package tracing_test

import (
	"context"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"regintel/shared/tracing"
)

const xraySampled = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"

// lambdaInvocation is ctx as aws-lambda-go hands it to a handler: with the
// invocation's X-Ray trace header under its own plain-string key.
func lambdaInvocation(ctx context.Context, header string) context.Context {
	//lint:ignore SA1029 the key is aws-lambda-go's, a plain string
	return context.WithValue(ctx, "x-amzn-trace-id", header)
}

func TestParseXRayHeader(t *testing.T) {
	for _, tc := range []struct {
		header          string
		trace, parent   string
		sampled, parsed bool
	}{
		{xraySampled, "5759e988bd862e3fe1be46a994272793", "53995c3f42cd8ad8", true, true},
		{"Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=0", "5759e988bd862e3fe1be46a994272793", "53995c3f42cd8ad8", false, true},
		// Order, spaces, other fields and upper-case hex do not matter.
		{"Sampled=1; Lineage=a87bd80c:1|68fd508a:5 ;Parent=53995C3F42CD8AD8;Root=1-5759E988-BD862E3FE1BE46A994272793;Self=1-x",
			"5759e988bd862e3fe1be46a994272793", "53995c3f42cd8ad8", true, true},
		{"", "", "", false, false},
		{"Root=1-5759e988-bd862e3fe1be46a994272793", "", "", false, false},
		{"Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1", "", "", false, false},
		{"Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8", "", "", false, false},
		{"Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=?", "", "", false, false},
		{"Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=yes", "", "", false, false},
		{"Root=2-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1", "", "", false, false},
		{"Root=1-5759e98-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1", "", "", false, false},
		{"Root=1-5759e988-bd862e3fe1be46a99427279;Parent=53995c3f42cd8ad8;Sampled=1", "", "", false, false},
		{"Root=1-5759e988bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1", "", "", false, false},
		{"Root=1-5759e988-bd862e3fe1be46a99427279g;Parent=53995c3f42cd8ad8;Sampled=1", "", "", false, false},
		{"Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad;Sampled=1", "", "", false, false},
		{"Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8adz;Sampled=1", "", "", false, false},
		{"Root=1-00000000-000000000000000000000000;Parent=53995c3f42cd8ad8;Sampled=1", "", "", false, false},
		{"Root=1-5759e988-bd862e3fe1be46a994272793;Parent=0000000000000000;Sampled=1", "", "", false, false},
		{xraySampled + ";Parent=1111111111111111", "", "", false, false},
		{xraySampled + ";garbage", "", "", false, false},
		{"Root=;Parent=53995c3f42cd8ad8;Sampled=1", "", "", false, false},
		{"root=1-5759e988-bd862e3fe1be46a994272793;parent=53995c3f42cd8ad8;sampled=1", "", "", false, false},
	} {
		sc, ok := tracing.ParseXRayHeader(tc.header)
		if ok != tc.parsed {
			t.Errorf("%q: parsed %v, want %v", tc.header, ok, tc.parsed)
			continue
		}
		if !ok {
			if sc.IsValid() {
				t.Errorf("%q: refused but returned %v", tc.header, sc)
			}
			continue
		}
		if sc.TraceID().String() != tc.trace || sc.SpanID().String() != tc.parent || sc.IsSampled() != tc.sampled || !sc.IsRemote() {
			t.Errorf("%q: got trace %s parent %s sampled %v remote %v", tc.header, sc.TraceID(), sc.SpanID(), sc.IsSampled(), sc.IsRemote())
		}
	}
}

// No header crashes the parser, and whatever it accepts is a valid remote
// span context that prints back to the X-Ray ids it came from.
func FuzzParseXRayHeader(f *testing.F) {
	for _, seed := range []string{xraySampled, "", ";", "=", "Root=1--;Parent=;Sampled=1", "Root=1-5759e988-bd862e3fe1be46a994272793;;;"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		sc, ok := tracing.ParseXRayHeader(header)
		if !ok {
			return
		}
		tid := sc.TraceID().String()
		root := "Root=1-" + tid[:8] + "-" + tid[8:]
		if !sc.IsValid() || !sc.IsRemote() || !strings.Contains(strings.ToLower(header), strings.ToLower(root)) ||
			!strings.Contains(strings.ToLower(header), "parent="+sc.SpanID().String()) {
			t.Fatalf("%q parsed as %v", header, sc)
		}
	})
}

func recordingProvider(t *testing.T) *tracetest.InMemoryExporter {
	t.Helper()
	exporter := tracetest.NewInMemoryExporter()
	tracing.Install(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter)))
	t.Cleanup(tracing.Uninstall)
	return exporter
}

// Under Lambda a unit of work with no trace of its own hangs under the
// invocation's X-Ray segment; a malformed header is ignored.
func TestRootSpanHangsUnderTheLambdaSegment(t *testing.T) {
	exporter := recordingProvider(t)
	_, root := tracing.StartRoot(lambdaInvocation(context.Background(), xraySampled), "POST /chat")
	root.End()
	_, other := tracing.StartRoot(lambdaInvocation(context.Background(), "Root=1-5759e988;Parent=nope"), "GET /healthz")
	other.End()
	spans := exporter.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("%d spans", len(spans))
	}
	got := spans[0]
	if got.SpanContext.TraceID().String() != "5759e988bd862e3fe1be46a994272793" || got.Parent.SpanID().String() != "53995c3f42cd8ad8" ||
		!got.Parent.IsRemote() || len(got.Links) != 0 {
		t.Fatalf("root span in trace %s under %s (links %v), want the X-Ray segment's", got.SpanContext.TraceID(), got.Parent.SpanID(), got.Links)
	}
	if malformed := spans[1]; malformed.Parent.IsValid() || len(malformed.Links) != 0 {
		t.Fatalf("a malformed header gave parent %v, links %v", malformed.Parent, malformed.Links)
	}
}

// A unit of work continuing a trace (a message from a chat turn) stays in
// that trace and links the invocation's segment.
func TestRootSpanWithItsOwnParentLinksTheLambdaSegment(t *testing.T) {
	exporter := recordingProvider(t)
	turn := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{9}, SpanID: trace.SpanID{8}, TraceFlags: trace.FlagsSampled, Remote: true})
	ctx := trace.ContextWithRemoteSpanContext(lambdaInvocation(context.Background(), xraySampled), turn)
	other := trace.Link{SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{7}, SpanID: trace.SpanID{6}})}
	_, batch := tracing.StartRoot(ctx, "resolve concepts", trace.WithLinks(other))
	batch.End()
	spans := exporter.GetSpans()
	if len(spans) != 1 {
		t.Fatalf("%d spans", len(spans))
	}
	got := spans[0]
	if got.SpanContext.TraceID() != turn.TraceID() || got.Parent.SpanID() != turn.SpanID() {
		t.Fatalf("batch span in trace %s under %s, want the turn's", got.SpanContext.TraceID(), got.Parent.SpanID())
	}
	if len(got.Links) != 2 || got.Links[0].SpanContext.TraceID() != other.SpanContext.TraceID() ||
		got.Links[1].SpanContext.TraceID().String() != "5759e988bd862e3fe1be46a994272793" || got.Links[1].SpanContext.SpanID().String() != "53995c3f42cd8ad8" {
		t.Fatalf("links %v, want the caller's link and the X-Ray segment", got.Links)
	}
}

// A span context written as an X-Ray header reads back the same.
func TestXRayHeaderRoundTrips(t *testing.T) {
	for _, flags := range []trace.TraceFlags{0, trace.FlagsSampled} {
		sc := trace.NewSpanContext(trace.SpanContextConfig{
			TraceID:    trace.TraceID{0x57, 0x59, 0xe9, 0x88, 0xbd, 0x86, 0x2e, 0x3f, 0xe1, 0xbe, 0x46, 0xa9, 0x94, 0x27, 0x27, 0x93},
			SpanID:     trace.SpanID{0x53, 0x99, 0x5c, 0x3f, 0x42, 0xcd, 0x8a, 0xd8},
			TraceFlags: flags, Remote: true,
		})
		header := tracing.XRayHeader(sc)
		if flags.IsSampled() && header != "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1" {
			t.Fatalf("header = %q", header)
		}
		back, ok := tracing.ParseXRayHeader(header)
		if !ok || !back.Equal(sc) {
			t.Fatalf("%q reads back as %v, want %v", header, back, sc)
		}
	}
	if tracing.XRayHeader(trace.SpanContext{}) != "" {
		t.Fatal("an invalid span context wrote a header")
	}
}
