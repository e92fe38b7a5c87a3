package tracing

import (
	"context"
	"net/http"

	"github.com/aws/aws-lambda-go/events"
)

// FromSQSRecord returns ctx carrying the trace context the publisher put in
// the record's message attributes (none: ctx unchanged).
func FromSQSRecord(ctx context.Context, rec events.SQSMessage) context.Context {
	if !On() {
		return ctx
	}
	attrs := map[string]string{}
	for _, key := range propagator.Fields() {
		if a, ok := rec.MessageAttributes[key]; ok && a.StringValue != nil {
			attrs[key] = *a.StringValue
		}
	}
	return Extract(ctx, attrs)
}

// FlushAfter wraps a Lambda handler so each invocation exports its spans
// before it returns.
func FlushAfter[In, Out any](handle func(context.Context, In) (Out, error)) func(context.Context, In) (Out, error) {
	return func(ctx context.Context, in In) (Out, error) {
		defer Flush(ctx)
		return handle(ctx, in)
	}
}

// FlushAfterHTTP is FlushAfter for the chat function's HTTP handler.
func FlushAfterHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer Flush(r.Context())
		next.ServeHTTP(w, r)
	})
}
