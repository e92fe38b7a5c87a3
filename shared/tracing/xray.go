package tracing

import (
	"context"
	"encoding/hex"
	"strings"

	"go.opentelemetry.io/otel/trace"
)

// lambdaTraceHeaderKey is the context key under which aws-lambda-go puts
// each invocation's X-Ray trace header, for SQS events and Function URL
// requests alike. (It also sets _X_AMZN_TRACE_ID, but only when the
// environment runs one invocation at a time.)
const lambdaTraceHeaderKey = "x-amzn-trace-id"

// LambdaSegment returns the span context of the Lambda invocation that ctx
// belongs to, from its X-Ray trace header; false outside Lambda or when
// the header is missing or malformed.
func LambdaSegment(ctx context.Context) (trace.SpanContext, bool) {
	header, _ := ctx.Value(lambdaTraceHeaderKey).(string)
	if header == "" {
		return trace.SpanContext{}, false
	}
	return ParseXRayHeader(header)
}

// ParseXRayHeader reads an X-Ray trace header such as
// "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1":
// the trace id is the Root's epoch and id, the span id is Parent, and
// Sampled (1 or 0) is the sampled flag. Other fields (Lineage, Self) are
// skipped. A header without all three, with one twice, or with a
// malformed value names no span context (false): the X-Ray parent is only
// taken when it is certain, and a decision still open (Sampled=?) is not
// one to follow.
func ParseXRayHeader(header string) (trace.SpanContext, bool) {
	var root, parent, sampled string
	for field := range strings.SplitSeq(header, ";") {
		key, value, ok := strings.Cut(strings.TrimSpace(field), "=")
		if !ok {
			return trace.SpanContext{}, false
		}
		var dst *string
		switch key {
		case "Root":
			dst = &root
		case "Parent":
			dst = &parent
		case "Sampled":
			dst = &sampled
		default:
			continue
		}
		if *dst != "" || value == "" {
			return trace.SpanContext{}, false
		}
		*dst = value
	}
	cfg := trace.SpanContextConfig{Remote: true}
	if !xrayTraceID(root, &cfg.TraceID) || !hexInto(cfg.SpanID[:], parent) {
		return trace.SpanContext{}, false
	}
	switch sampled {
	case "1":
		cfg.TraceFlags = trace.FlagsSampled
	case "0":
	default:
		return trace.SpanContext{}, false
	}
	sc := trace.NewSpanContext(cfg)
	return sc, sc.IsValid()
}

// XRayHeader writes sc as an X-Ray trace header (the form ParseXRayHeader
// reads); "" for an invalid span context. On an SQS message it is the
// AWSTraceHeader system attribute, from which X-Ray ties the consuming
// Lambda invocation to the publisher's trace.
func XRayHeader(sc trace.SpanContext) string {
	if !sc.IsValid() {
		return ""
	}
	id := sc.TraceID().String()
	sampled := "0"
	if sc.IsSampled() {
		sampled = "1"
	}
	return "Root=1-" + id[:8] + "-" + id[8:] + ";Parent=" + sc.SpanID().String() + ";Sampled=" + sampled
}

// xrayTraceID reads "1-<8 hex digits of epoch>-<24 hex digits>".
func xrayTraceID(root string, id *trace.TraceID) bool {
	version, rest, _ := strings.Cut(root, "-")
	epoch, unique, _ := strings.Cut(rest, "-")
	return version == "1" && hexInto(id[:4], epoch) && hexInto(id[4:], unique)
}

// hexInto decodes s into dst, which it must fill exactly.
func hexInto(dst []byte, s string) bool {
	if len(s) != 2*len(dst) {
		return false
	}
	_, err := hex.Decode(dst, []byte(s))
	return err == nil
}
