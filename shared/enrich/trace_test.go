package enrich_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"regintel/shared/enrich"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/queue"
	"regintel/shared/tracing"
)

// A job's spans join the trace of the turn that queued it: the trace
// context rides in the record's message attributes.
func TestEnrichmentJobJoinsThePublishersTrace(t *testing.T) {
	exporter := tracetest.NewInMemoryExporter()
	tracing.Install(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter)))
	t.Cleanup(tracing.Uninstall)

	h := newHarness(t, graphmem.New())
	env, err := queue.NewEnvelope(queue.TypeEnrichmentRequested, h.vat)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(env)
	publishCtx, publish := tracing.StartRoot(context.Background(), "sqs publish")
	attrs := map[string]events.SQSMessageAttribute{}
	for k, v := range tracing.Inject(publishCtx) {
		attrs[k] = events.SQSMessageAttribute{DataType: "String", StringValue: &v}
	}
	publish.End()

	resp, err := h.newHandler(enrich.Config{}).HandleSQS(context.Background(),
		events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m1", Body: string(raw), MessageAttributes: attrs}}})
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("%+v %v", resp, err)
	}
	var job, call *tracetest.SpanStub
	spans := exporter.GetSpans()
	for i := range spans {
		switch spans[i].Name {
		case "enrich concept":
			job = &spans[i]
		case "llm call":
			call = &spans[i]
		}
	}
	if job == nil || call == nil {
		t.Fatalf("want an enrich concept span and an llm call span, got %v", spans)
	}
	if job.SpanContext.TraceID() != publish.SpanContext().TraceID() || job.Parent.SpanID() != publish.SpanContext().SpanID() {
		t.Errorf("the job's span does not continue the publish: parent %v", job.Parent)
	}
	if call.Parent.SpanID() != job.SpanContext.SpanID() {
		t.Errorf("the model call is not under the job's span")
	}
}
