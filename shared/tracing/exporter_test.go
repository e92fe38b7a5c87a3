package tracing_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math"
	"regexp"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"regintel/shared/tracing"
)

// Spans built by real SDK providers reach the receiver as an OTLP
// ExportTraceServiceRequest in JSON that the official protobuf types decode,
// every field intact.
//
// The body is decoded with protojson after one conversion: the trace and
// span ids go from hex (what OTLP/JSON requires) to base64 (what protobuf's
// JSON mapping, and so protojson, expects for bytes). That is the only
// deviation OTLP/JSON makes from protobuf's JSON mapping that protojson
// does not accept (integer enums and 64-bit integers as strings it
// accepts), so a strict protojson decode checks every other field's name
// and encoding; the raw JSON is checked for the ids' hex and the enums'
// integers, which protojson alone would not catch.
func TestExporterSendsEverySpanFieldAsOTLPJSON(t *testing.T) {
	spans := spansOfEveryShape(t)
	rc := newReceiver(t, nil)
	exp := tracing.NewExporter(rc.URL, tracing.ExporterOptions{})
	if err := exp.ExportSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	got := rc.requests()
	if len(got) != 1 || got[0].Path != "/v1/traces" || got[0].ContentType != "application/json" {
		t.Fatalf("receiver got %+v, want one JSON POST to /v1/traces", got)
	}
	checkRawOTLPJSON(t, got[0].Body)
	req := decodeOTLPJSON(t, got[0].Body)

	type placed struct {
		span     *tracepb.Span
		resource []*commonpb.KeyValue
		scope    *commonpb.InstrumentationScope
		schema   string
	}
	byID := map[string]placed{}
	groups := map[string]bool{}
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			group := protojson.Format(rs.Resource) + protojson.Format(ss.Scope)
			if groups[group] {
				t.Errorf("resource %v scope %v appear in two groups", rs.Resource, ss.Scope)
			}
			groups[group] = true
			for _, s := range ss.Spans {
				byID[hex.EncodeToString(s.SpanId)] = placed{s, rs.Resource.GetAttributes(), ss.Scope, ss.SchemaUrl}
			}
		}
	}
	if len(byID) != len(spans) || len(groups) != 3 {
		t.Fatalf("decoded %d spans in %d resource/scope groups, want %d in 3", len(byID), len(groups), len(spans))
	}
	for _, s := range spans {
		p, ok := byID[s.SpanContext().SpanID().String()]
		if !ok {
			t.Fatalf("span %q not sent", s.Name())
		}
		if want := otlpSpan(s); !proto.Equal(p.span, want) {
			t.Errorf("span %q:\n got %v\nwant %v", s.Name(), p.span, want)
		}
		if want := otlpKeyValues(s.Resource().Attributes()); !equalKeyValues(p.resource, want) {
			t.Errorf("span %q resource %v, want %v", s.Name(), p.resource, want)
		}
		sc := s.InstrumentationScope()
		want := &commonpb.InstrumentationScope{Name: sc.Name, Version: sc.Version, Attributes: otlpKeyValues(sc.Attributes.ToSlice())}
		if !proto.Equal(p.scope, want) || p.schema != sc.SchemaURL {
			t.Errorf("span %q scope %v (schema %q), want %v (%q)", s.Name(), p.scope, p.schema, want, sc.SchemaURL)
		}
	}
}

// spansOfEveryShape ends spans from two providers (two resources), two
// scopes of one of them: a root under a remote parent, a child with
// every attribute kind, events, links, an error status, and more
// attributes, events and links than the limits keep.
func spansOfEveryShape(t *testing.T) []sdktrace.ReadOnlySpan {
	t.Helper()
	recorder := tracetest.NewSpanRecorder()
	limits := sdktrace.NewSpanLimits()
	limits.AttributeCountLimit, limits.EventCountLimit, limits.LinkCountLimit = 16, 2, 2
	limits.AttributePerEventCountLimit, limits.AttributePerLinkCountLimit = 1, 1
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder), sdktrace.WithRawSpanLimits(limits),
		sdktrace.WithResource(resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0",
			attribute.String("service.name", "chat"), attribute.Int64("build", 7))))
	tracer := tp.Tracer(tracing.Name, trace.WithInstrumentationVersion("1.2.3"),
		trace.WithSchemaURL("https://opentelemetry.io/schemas/1.26.0"), trace.WithInstrumentationAttributes(attribute.Bool("scoped", true)))

	state, _ := trace.ParseTraceState("vendor=value")
	caller := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{0x57, 0x59, 0xe9, 0x88, 15: 0x93}, SpanID: trace.SpanID{0x53, 7: 0xd8},
		TraceFlags: trace.FlagsSampled, TraceState: state, Remote: true})
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), caller)
	ctx, root := tracer.Start(ctx, "POST /chat", trace.WithSpanKind(trace.SpanKindServer))
	linked := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6},
		TraceFlags: trace.FlagsSampled, TraceState: state, Remote: true})
	_, child := tracer.Start(ctx, "llm call", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attributesOfEveryKind()...),
		trace.WithLinks(
			trace.Link{SpanContext: linked, Attributes: []attribute.KeyValue{attribute.String("a", "1"), attribute.String("b", "2")}},
			trace.Link{SpanContext: root.SpanContext()},
			trace.Link{SpanContext: linked}))
	for i := range 17 {
		child.SetAttributes(attribute.Int("extra", i), attribute.Int("extra."+string(rune('a'+i)), i))
	}
	child.AddEvent("first token", trace.WithAttributes(attribute.Int("tokens", 1), attribute.Int("over", 2)))
	child.AddEvent("retry")
	child.AddEvent("dropped")
	child.SetStatus(codes.Error, "model timed out")
	child.End()
	root.SetStatus(codes.Ok, "")
	root.End()
	_, other := tp.Tracer("other").Start(ctx, "graph read", trace.WithSpanKind(trace.SpanKindInternal))
	other.End()

	tp2 := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "resolve-concepts"))))
	_, consumer := tp2.Tracer(tracing.Name).Start(context.Background(), "resolve concepts", trace.WithSpanKind(trace.SpanKindConsumer))
	_, producer := tp2.Tracer(tracing.Name).Start(context.Background(), "sqs publish", trace.WithSpanKind(trace.SpanKindProducer))
	consumer.End()
	producer.End()
	return recorder.Ended()
}

func attributesOfEveryKind() []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.Bool("bool", false), attribute.Int64("int", math.MinInt64), attribute.Float64("float", 0.1),
		attribute.Float64("nan", math.NaN()), attribute.Float64("inf", math.Inf(1)), attribute.Float64("-inf", math.Inf(-1)),
		attribute.String("string", "ünïcode \"quoted\" <html>"),
		attribute.BoolSlice("bools", []bool{true, false}), attribute.Int64Slice("ints", []int64{math.MaxInt64, -1}),
		attribute.Float64Slice("floats", []float64{1.5, -2}), attribute.StringSlice("strings", []string{"a", ""}),
		attribute.StringSlice("no strings", nil),
		{Key: "bytes", Value: attribute.ByteSliceValue([]byte{0, 0xff, 'x'})}, {Key: "no bytes", Value: attribute.ByteSliceValue(nil)},
		{Key: "slice", Value: attribute.SliceValue(attribute.StringValue("x"), attribute.Int64Value(2), attribute.SliceValue(attribute.BoolValue(true)))},
		{Key: "map", Value: attribute.MapValue(attribute.String("k", "v"), attribute.Float64("f", 2.5))},
		{Key: "empty"},
	}
}

// checkRawOTLPJSON checks what protojson would accept either way: ids in
// hex, enums as integers.
func checkRawOTLPJSON(t *testing.T, body []byte) {
	t.Helper()
	var raw struct {
		ResourceSpans []struct {
			ScopeSpans []struct {
				Spans []map[string]any `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatal(err)
	}
	hexID := regexp.MustCompile(`^[0-9a-fA-F]+$`)
	for _, rs := range raw.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				for key, n := range map[string]int{"traceId": 32, "spanId": 16, "parentSpanId": 16} {
					if v, ok := s[key].(string); (ok || key != "parentSpanId") && (len(v) != n || !hexID.MatchString(v)) {
						t.Errorf("span %v: %s %q is not %d hex digits", s["name"], key, v, n)
					}
				}
				if _, ok := s["kind"].(float64); !ok {
					t.Errorf("span %v: kind %v is not an integer", s["name"], s["kind"])
				}
				if st, ok := s["status"].(map[string]any); ok {
					if _, ok := st["code"].(float64); !ok {
						t.Errorf("span %v: status code %v is not an integer", s["name"], st["code"])
					}
				}
				links, _ := s["links"].([]any)
				for _, l := range links {
					l := l.(map[string]any)
					if tid, _ := l["traceId"].(string); len(tid) != 32 || !hexID.MatchString(tid) {
						t.Errorf("span %v: link traceId %q is not hex", s["name"], tid)
					}
				}
			}
		}
	}
}

// decodeOTLPJSON decodes an OTLP/JSON trace request with the official
// types, refusing unknown fields.
func decodeOTLPJSON(t *testing.T, body []byte) *collectortrace.ExportTraceServiceRequest {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	for _, rs := range list(doc["resourceSpans"]) {
		for _, ss := range list(rs["scopeSpans"]) {
			for _, s := range list(ss["spans"]) {
				hexToBase64(t, s, "traceId", "spanId", "parentSpanId")
				for _, l := range list(s["links"]) {
					hexToBase64(t, l, "traceId", "spanId")
				}
			}
		}
	}
	converted, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var req collectortrace.ExportTraceServiceRequest
	if err := (protojson.UnmarshalOptions{DiscardUnknown: false}).Unmarshal(converted, &req); err != nil {
		t.Fatalf("the official types refuse the request: %v\n%s", err, body)
	}
	return &req
}

func list(v any) []map[string]any {
	items, _ := v.([]any)
	out := make([]map[string]any, 0, len(items))
	for _, item := range items {
		if m, ok := item.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func hexToBase64(t *testing.T, m map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if s, ok := m[k].(string); ok {
			b, err := hex.DecodeString(s)
			if err != nil {
				t.Fatalf("%s %q: %v", k, s, err)
			}
			m[k] = base64.StdEncoding.EncodeToString(b)
		}
	}
}

// otlpSpan is span as the OTLP protobuf types hold it.
func otlpSpan(s sdktrace.ReadOnlySpan) *tracepb.Span {
	sc := s.SpanContext()
	out := &tracepb.Span{
		TraceId: bytesOf(sc.TraceID()), SpanId: bytesOf(sc.SpanID()), TraceState: sc.TraceState().String(),
		Flags: flags(sc.TraceFlags(), s.Parent().IsRemote()), Name: s.Name(), Kind: tracepb.Span_SpanKind(s.SpanKind()),
		StartTimeUnixNano: uint64(s.StartTime().UnixNano()), EndTimeUnixNano: uint64(s.EndTime().UnixNano()),
		Attributes: otlpKeyValues(s.Attributes()), DroppedAttributesCount: uint32(s.DroppedAttributes()),
		DroppedEventsCount: uint32(s.DroppedEvents()), DroppedLinksCount: uint32(s.DroppedLinks()),
	}
	if s.Parent().IsValid() {
		out.ParentSpanId = bytesOf(s.Parent().SpanID())
	}
	switch st := s.Status(); st.Code {
	case codes.Ok:
		out.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK, Message: st.Description}
	case codes.Error:
		out.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: st.Description}
	}
	for _, e := range s.Events() {
		out.Events = append(out.Events, &tracepb.Span_Event{TimeUnixNano: uint64(e.Time.UnixNano()), Name: e.Name,
			Attributes: otlpKeyValues(e.Attributes), DroppedAttributesCount: uint32(e.DroppedAttributeCount)})
	}
	for _, l := range s.Links() {
		out.Links = append(out.Links, &tracepb.Span_Link{TraceId: bytesOf(l.SpanContext.TraceID()), SpanId: bytesOf(l.SpanContext.SpanID()),
			TraceState: l.SpanContext.TraceState().String(), Attributes: otlpKeyValues(l.Attributes),
			DroppedAttributesCount: uint32(l.DroppedAttributeCount), Flags: flags(l.SpanContext.TraceFlags(), l.SpanContext.IsRemote())})
	}
	return out
}

func bytesOf[ID trace.TraceID | trace.SpanID](id ID) []byte {
	if tid, ok := any(id).(trace.TraceID); ok {
		return tid[:]
	}
	sid := any(id).(trace.SpanID)
	return sid[:]
}

// flags: the W3C trace flags, whether the parent is remote known (bit 8)
// and set (bit 9).
func flags(tf trace.TraceFlags, remote bool) uint32 {
	f := uint32(tf) | uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK)
	if remote {
		f |= uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK)
	}
	return f
}

func otlpKeyValues(attrs []attribute.KeyValue) []*commonpb.KeyValue {
	var out []*commonpb.KeyValue
	for _, kv := range attrs {
		out = append(out, &commonpb.KeyValue{Key: string(kv.Key), Value: otlpValue(kv.Value)})
	}
	return out
}

func equalKeyValues(a, b []*commonpb.KeyValue) bool {
	return proto.Equal(&commonpb.KeyValueList{Values: a}, &commonpb.KeyValueList{Values: b})
}

func otlpValue(v attribute.Value) *commonpb.AnyValue {
	array := func(n int, at func(i int) attribute.Value) *commonpb.AnyValue {
		values := make([]*commonpb.AnyValue, n)
		for i := range values {
			values[i] = otlpValue(at(i))
		}
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: values}}}
	}
	switch v.Type() {
	case attribute.BOOL:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}}
	case attribute.INT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}}
	case attribute.FLOAT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}}
	case attribute.STRING:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.AsString()}}
	case attribute.BYTESLICE:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BytesValue{BytesValue: v.AsByteSlice()}}
	case attribute.BOOLSLICE:
		s := v.AsBoolSlice()
		return array(len(s), func(i int) attribute.Value { return attribute.BoolValue(s[i]) })
	case attribute.INT64SLICE:
		s := v.AsInt64Slice()
		return array(len(s), func(i int) attribute.Value { return attribute.Int64Value(s[i]) })
	case attribute.FLOAT64SLICE:
		s := v.AsFloat64Slice()
		return array(len(s), func(i int) attribute.Value { return attribute.Float64Value(s[i]) })
	case attribute.STRINGSLICE:
		s := v.AsStringSlice()
		return array(len(s), func(i int) attribute.Value { return attribute.StringValue(s[i]) })
	case attribute.SLICE:
		s := v.AsSlice()
		return array(len(s), func(i int) attribute.Value { return s[i] })
	case attribute.MAP:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_KvlistValue{KvlistValue: &commonpb.KeyValueList{Values: otlpKeyValues(v.AsMap())}}}
	}
	return &commonpb.AnyValue{}
}
