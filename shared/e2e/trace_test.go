package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"regintel/shared/llm/llmtest"
	"regintel/shared/queue/sqs/sqstest"
	"regintel/shared/tracing"
)

// receiveWithAttributes receives as the Lambda SQS trigger delivers:
// message attributes included.
func receiveWithAttributes(t *testing.T, c *awssqs.Client, url string) []events.SQSMessage {
	t.Helper()
	out, err := c.ReceiveMessage(context.Background(), &awssqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10,
		WaitTimeSeconds: 1, MessageAttributeNames: []string{"All"}})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []events.SQSMessage
	for _, m := range out.Messages {
		attrs := map[string]events.SQSMessageAttribute{}
		for k, v := range m.MessageAttributes {
			attrs[k] = events.SQSMessageAttribute{DataType: aws.ToString(v.DataType), StringValue: v.StringValue}
		}
		msgs = append(msgs, events.SQSMessage{MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle),
			Body: aws.ToString(m.Body), MessageAttributes: attrs, EventSource: "aws:sqs"})
	}
	return msgs
}

// One chat turn that captures a concept, and the resolver run on the SQS
// message it published, make one trace: the request's span is its only
// root, and the resolver's batch hangs under the turn's publish.
func TestATurnAndItsResolverFormOneTrace(t *testing.T) {
	client := sqstest.Client(t)
	exporter := tracetest.NewInMemoryExporter()
	tracing.Install(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter)))
	t.Cleanup(tracing.Uninstall)

	p := newPipeline(t, client, 4)
	unique := uniqueLetters()
	kind := "TRACE_" + unique
	// The run's own kind is outside the vocabulary: it makes no node, and
	// its held enrichment job is the resolver's publish. VAT, in the
	// vocabulary, is the resolver's graph write.
	p.fake.Enqueue(llmtest.Script{Steps: llmtest.Steps(llmtest.Words("The relief applies."),
		llmtest.ToolCallJSON("capture_concepts", map[string]any{"concepts": []map[string]any{{
			"domain": "TAX", "kind": kind, "jurisdiction": "IE", "prefLabel": "Traced relief " + unique,
			"definition": "a test relief", "sourceUrls": []string{"https://www.revenue.ie/en/"}},
			{"domain": "TAX", "kind": "VAT", "jurisdiction": "IE", "prefLabel": "Value-Added Tax"}}}, 3))})
	p.turn(t, `{"message":"Which relief applies?","profile":{"jurisdictions":["IE"]}}`)

	msgs := receiveWithAttributes(t, client, p.conceptsURL)
	if len(msgs) != 1 {
		t.Fatalf("concepts queue holds %d messages, want 1", len(msgs))
	}
	p.resolve(t, msgs)

	// The turn ends its publish span just after SQS accepted the message.
	spans := waitForSpans(exporter, "sqs publish", 2)
	byName, byID := checkOneTrace(t, spans)
	if len(byName["llm call"]) != 1 {
		t.Errorf("want a span for the turn's one model call, got %d", len(byName["llm call"]))
	}
	// The turn's publish, then the enrichment job the resolver publishes.
	turnPublish := byName["sqs publish"][0]
	resolve := byName["resolve concepts"][0]
	if resolve.Parent.SpanID() != turnPublish.SpanContext.SpanID() || !resolve.Parent.IsRemote() {
		t.Errorf("the resolver's batch should continue the turn's publish across SQS; parent %v", resolve.Parent)
	}
	if len(resolve.Links) != 1 || resolve.Links[0].SpanContext.SpanID() != turnPublish.SpanContext.SpanID() {
		t.Errorf("the resolver's batch should link its record's publish: %+v", resolve.Links)
	}
	for _, w := range byName["graph write"] {
		if !descendsFrom(w, resolve, byID) {
			t.Errorf("graph write %s is not under the resolver's batch", w.SpanContext.SpanID())
		}
	}
}

// checkOneTrace stops the test unless every expected span is there, and
// checks they share the request's trace with the request's span as the
// only root; it returns the spans by name and by id.
func checkOneTrace(t *testing.T, spans tracetest.SpanStubs) (map[string][]tracetest.SpanStub, map[trace.SpanID]tracetest.SpanStub) {
	t.Helper()
	byName := map[string][]tracetest.SpanStub{}
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, s := range spans {
		byName[s.Name] = append(byName[s.Name], s)
		byID[s.SpanContext.SpanID()] = s
	}
	for _, name := range []string{"POST /chat", "postgres batch", "graph read", "llm call", "sqs publish", "resolve concepts", "graph write"} {
		if len(byName[name]) == 0 {
			t.Errorf("no %q span; spans: %v", name, names(spans))
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	request := byName["POST /chat"][0]
	for _, s := range spans {
		if s.SpanContext.TraceID() != request.SpanContext.TraceID() {
			t.Errorf("span %q is in trace %s, the request in %s", s.Name, s.SpanContext.TraceID(), request.SpanContext.TraceID())
		}
		if _, ok := byID[s.Parent.SpanID()]; !ok && s.SpanContext.SpanID() != request.SpanContext.SpanID() {
			t.Errorf("span %q has no parent among the trace's spans (a second root)", s.Name)
		}
	}
	return byName, byID
}

func descendsFrom(s, ancestor tracetest.SpanStub, byID map[trace.SpanID]tracetest.SpanStub) bool {
	for range byID {
		parent, ok := byID[s.Parent.SpanID()]
		if !ok {
			return false
		}
		if parent.SpanContext.SpanID() == ancestor.SpanContext.SpanID() {
			return true
		}
		s = parent
	}
	return false
}

// waitForSpans returns the ended spans once want of them are named name,
// or what there is after a few seconds.
func waitForSpans(exporter *tracetest.InMemoryExporter, name string, want int) tracetest.SpanStubs {
	deadline := time.Now().Add(5 * time.Second)
	for {
		spans := exporter.GetSpans()
		n := 0
		for _, s := range spans {
			if s.Name == name {
				n++
			}
		}
		if n >= want || time.Now().After(deadline) {
			return spans
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func names(spans tracetest.SpanStubs) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}
