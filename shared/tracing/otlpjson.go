package tracing

import (
	"encoding/hex"
	"math"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The OTLP ExportTraceServiceRequest in its JSON encoding: protobuf's JSON
// mapping (lowerCamelCase keys, 64-bit integers as decimal strings, bytes
// as base64) except that trace and span ids are hex strings and enums are
// integers. Zero values are left out, as protobuf's JSON mapping does.

type exportRequest struct {
	ResourceSpans []*resourceSpans `json:"resourceSpans"`
}

type resourceSpans struct {
	Resource   otlpResource  `json:"resource"`
	ScopeSpans []*scopeSpans `json:"scopeSpans"`
	SchemaURL  string        `json:"schemaUrl,omitempty"`
}

type otlpResource struct {
	Attributes []keyValue `json:"attributes,omitempty"`
}

type scopeSpans struct {
	Scope     otlpScope  `json:"scope"`
	Spans     []otlpSpan `json:"spans"`
	SchemaURL string     `json:"schemaUrl,omitempty"`
}

type otlpScope struct {
	Name       string     `json:"name,omitempty"`
	Version    string     `json:"version,omitempty"`
	Attributes []keyValue `json:"attributes,omitempty"`
}

type otlpSpan struct {
	TraceID                string      `json:"traceId"`
	SpanID                 string      `json:"spanId"`
	TraceState             string      `json:"traceState,omitempty"`
	ParentSpanID           string      `json:"parentSpanId,omitempty"`
	Flags                  uint32      `json:"flags,omitempty"`
	Name                   string      `json:"name"`
	Kind                   int         `json:"kind,omitempty"`
	StartTimeUnixNano      uint64      `json:"startTimeUnixNano,string"`
	EndTimeUnixNano        uint64      `json:"endTimeUnixNano,string"`
	Attributes             []keyValue  `json:"attributes,omitempty"`
	DroppedAttributesCount uint32      `json:"droppedAttributesCount,omitempty"`
	Events                 []spanEvent `json:"events,omitempty"`
	DroppedEventsCount     uint32      `json:"droppedEventsCount,omitempty"`
	Links                  []spanLink  `json:"links,omitempty"`
	DroppedLinksCount      uint32      `json:"droppedLinksCount,omitempty"`
	Status                 *spanStatus `json:"status,omitempty"`
}

type spanEvent struct {
	TimeUnixNano           uint64     `json:"timeUnixNano,string"`
	Name                   string     `json:"name"`
	Attributes             []keyValue `json:"attributes,omitempty"`
	DroppedAttributesCount uint32     `json:"droppedAttributesCount,omitempty"`
}

type spanLink struct {
	TraceID                string     `json:"traceId"`
	SpanID                 string     `json:"spanId"`
	TraceState             string     `json:"traceState,omitempty"`
	Attributes             []keyValue `json:"attributes,omitempty"`
	DroppedAttributesCount uint32     `json:"droppedAttributesCount,omitempty"`
	Flags                  uint32     `json:"flags,omitempty"`
}

type spanStatus struct {
	Message string `json:"message,omitempty"`
	Code    int    `json:"code,omitempty"`
}

type keyValue struct {
	Key   string   `json:"key"`
	Value anyValue `json:"value"`
}

// anyValue holds one of its fields; none for an empty attribute value.
type anyValue struct {
	StringValue *string     `json:"stringValue,omitempty"`
	BoolValue   *bool       `json:"boolValue,omitempty"`
	IntValue    *int64      `json:"intValue,omitempty,string"`
	DoubleValue *jsonDouble `json:"doubleValue,omitempty"`
	ArrayValue  *arrayValue `json:"arrayValue,omitempty"`
	KvlistValue *kvList     `json:"kvlistValue,omitempty"`
	BytesValue  *[]byte     `json:"bytesValue,omitempty"`
}

type arrayValue struct {
	Values []anyValue `json:"values,omitempty"`
}

type kvList struct {
	Values []keyValue `json:"values,omitempty"`
}

// jsonDouble is a double as protobuf's JSON mapping writes it: a number,
// or "NaN", "Infinity", "-Infinity", which JSON numbers cannot express.
type jsonDouble float64

func (d jsonDouble) MarshalJSON() ([]byte, error) {
	f := float64(d)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"Infinity"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Infinity"`), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// Span flags: the low byte is the W3C trace flags; the two bits above it
// say that whether the parent is remote is known, and that it is.
const (
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

// encodeSpans groups spans by resource, then by instrumentation scope, as
// the request nests them.
func encodeSpans(spans []sdktrace.ReadOnlySpan) exportRequest {
	type scopeKey struct {
		resource attribute.Distinct
		scope    instrumentation.Scope
	}
	byResource := map[attribute.Distinct]*resourceSpans{}
	byScope := map[scopeKey]*scopeSpans{}
	req := exportRequest{ResourceSpans: []*resourceSpans{}}
	for _, s := range spans {
		if s == nil {
			continue
		}
		res := s.Resource()
		rk := res.Equivalent()
		rs, ok := byResource[rk]
		if !ok {
			rs = &resourceSpans{Resource: encodeResource(res), SchemaURL: res.SchemaURL()}
			byResource[rk] = rs
			req.ResourceSpans = append(req.ResourceSpans, rs)
		}
		sk := scopeKey{rk, s.InstrumentationScope()}
		ss, ok := byScope[sk]
		if !ok {
			scope := sk.scope
			ss = &scopeSpans{SchemaURL: scope.SchemaURL,
				Scope: otlpScope{Name: scope.Name, Version: scope.Version, Attributes: encodeAttributes(scope.Attributes.ToSlice())}}
			byScope[sk] = ss
			rs.ScopeSpans = append(rs.ScopeSpans, ss)
		}
		ss.Spans = append(ss.Spans, encodeSpan(s))
	}
	return req
}

func encodeResource(res *resource.Resource) otlpResource {
	if res == nil {
		return otlpResource{}
	}
	return otlpResource{Attributes: encodeAttributes(res.Attributes())}
}

func encodeSpan(s sdktrace.ReadOnlySpan) otlpSpan {
	sc := s.SpanContext()
	out := otlpSpan{
		TraceID:                traceIDHex(sc.TraceID()),
		SpanID:                 spanIDHex(sc.SpanID()),
		TraceState:             sc.TraceState().String(),
		Flags:                  spanFlags(sc.TraceFlags(), s.Parent()),
		Name:                   s.Name(),
		Kind:                   spanKind(s.SpanKind()),
		StartTimeUnixNano:      unixNano(s.StartTime().UnixNano()),
		EndTimeUnixNano:        unixNano(s.EndTime().UnixNano()),
		Attributes:             encodeAttributes(s.Attributes()),
		DroppedAttributesCount: count(s.DroppedAttributes()),
		DroppedEventsCount:     count(s.DroppedEvents()),
		DroppedLinksCount:      count(s.DroppedLinks()),
		Status:                 encodeStatus(s.Status()),
	}
	if p := s.Parent().SpanID(); p.IsValid() {
		out.ParentSpanID = spanIDHex(p)
	}
	for _, e := range s.Events() {
		out.Events = append(out.Events, spanEvent{TimeUnixNano: unixNano(e.Time.UnixNano()), Name: e.Name,
			Attributes: encodeAttributes(e.Attributes), DroppedAttributesCount: count(e.DroppedAttributeCount)})
	}
	for _, l := range s.Links() {
		out.Links = append(out.Links, spanLink{
			TraceID: traceIDHex(l.SpanContext.TraceID()), SpanID: spanIDHex(l.SpanContext.SpanID()),
			TraceState: l.SpanContext.TraceState().String(), Attributes: encodeAttributes(l.Attributes),
			DroppedAttributesCount: count(l.DroppedAttributeCount), Flags: spanFlags(l.SpanContext.TraceFlags(), l.SpanContext),
		})
	}
	return out
}

func traceIDHex(id trace.TraceID) string { return hex.EncodeToString(id[:]) }
func spanIDHex(id trace.SpanID) string   { return hex.EncodeToString(id[:]) }

// spanFlags are a span's trace flags and whether remote is its parent (for a
// link: the linked span).
func spanFlags(tf trace.TraceFlags, other trace.SpanContext) uint32 {
	flags := uint32(tf) | flagHasIsRemote
	if other.IsRemote() {
		flags |= flagIsRemote
	}
	return flags
}

// spanKind is the OTLP enum's number, which shares the API's numbering.
func spanKind(k trace.SpanKind) int {
	if k < trace.SpanKindInternal || k > trace.SpanKindConsumer {
		return 0
	}
	return int(k)
}

func encodeStatus(st sdktrace.Status) *spanStatus {
	code := 0
	switch st.Code {
	case codes.Ok:
		code = 1
	case codes.Error:
		code = 2
	}
	if code == 0 && st.Description == "" {
		return nil
	}
	return &spanStatus{Code: code, Message: st.Description}
}

func unixNano(n int64) uint64 { return uint64(max(n, 0)) }

func count(n int) uint32 { return uint32(min(max(n, 0), math.MaxUint32)) }

func encodeAttributes(attrs []attribute.KeyValue) []keyValue {
	if len(attrs) == 0 {
		return nil
	}
	out := make([]keyValue, len(attrs))
	for i, kv := range attrs {
		out[i] = keyValue{Key: string(kv.Key), Value: encodeValue(kv.Value)}
	}
	return out
}

// encodeValue covers every attribute.Value kind; an empty one is an empty
// AnyValue.
func encodeValue(v attribute.Value) anyValue {
	switch v.Type() {
	case attribute.BOOL:
		b := v.AsBool()
		return anyValue{BoolValue: &b}
	case attribute.INT64:
		n := v.AsInt64()
		return anyValue{IntValue: &n}
	case attribute.FLOAT64:
		f := jsonDouble(v.AsFloat64())
		return anyValue{DoubleValue: &f}
	case attribute.STRING:
		s := v.AsString()
		return anyValue{StringValue: &s}
	case attribute.BYTESLICE:
		b := v.AsByteSlice()
		return anyValue{BytesValue: &b}
	case attribute.BOOLSLICE:
		return array(v.AsBoolSlice(), attribute.BoolValue)
	case attribute.INT64SLICE:
		return array(v.AsInt64Slice(), attribute.Int64Value)
	case attribute.FLOAT64SLICE:
		return array(v.AsFloat64Slice(), attribute.Float64Value)
	case attribute.STRINGSLICE:
		return array(v.AsStringSlice(), attribute.StringValue)
	case attribute.SLICE:
		return array(v.AsSlice(), func(e attribute.Value) attribute.Value { return e })
	case attribute.MAP:
		return anyValue{KvlistValue: &kvList{Values: encodeAttributes(v.AsMap())}}
	}
	return anyValue{}
}

func array[T any](items []T, value func(T) attribute.Value) anyValue {
	out := &arrayValue{Values: make([]anyValue, len(items))}
	for i, item := range items {
		out.Values[i] = encodeValue(value(item))
	}
	return anyValue{ArrayValue: out}
}
