package sqs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"regintel/shared/queue"
	"regintel/shared/queue/queuetest"
	"regintel/shared/queue/sqs"
	"regintel/shared/queue/sqs/sqstest"
	"regintel/shared/tracing"
)

// TestConformance runs the queue contract on moto. The consumer side is
// what Lambda's event source mapping does: receive up to ten messages, hand
// each to the handler, delete the ones handled; the rest become visible
// again and, after maxReceiveCount receives, move to the dead-letter queue.
func TestConformance(t *testing.T) {
	queuetest.Run(t, motoQueues(sqstest.Client(t)))
}

func BenchmarkConformanceQueue(b *testing.B) { queuetest.Bench(b, motoQueues(sqstest.Client(b))) }

func motoQueues(client *awssqs.Client) queuetest.NewQueue {
	return func(t testing.TB, handler queue.Handler, maxDeliveries int) queuetest.Queue {
		q := sqstest.NewQueue(t, client, "conformance", maxDeliveries)
		return queuetest.Queue{
			Publisher: sqs.NewPublisher(client, q.URL),
			Settle:    func(t testing.TB) { consume(t, client, q.URL, handler) },
		}
	}
}

// consume delivers until the queue has stayed empty for a few receives. It
// fails when many receives in a row settle nothing (a message that never
// leaves), not after a fixed number of rounds: a benchmark may publish
// thousands of messages, ten a receive.
func consume(t testing.TB, client *awssqs.Client, queueURL string, handler queue.Handler) {
	t.Helper()
	ctx := context.Background()
	for stalled, empty := 0, 0; empty < 3; {
		if stalled > 200 {
			t.Fatalf("the queue does not drain: %d receives in a row deleted nothing", stalled)
		}
		out, err := client.ReceiveMessage(ctx, &awssqs.ReceiveMessageInput{QueueUrl: aws.String(queueURL), MaxNumberOfMessages: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) == 0 {
			empty++
			continue
		}
		empty = 0
		stalled++
		for _, m := range out.Messages {
			env, err := queue.Decode([]byte(aws.ToString(m.Body)))
			if err == nil {
				err = handler(ctx, env)
			}
			if err != nil {
				continue
			}
			if _, err := client.DeleteMessage(ctx, &awssqs.DeleteMessageInput{QueueUrl: aws.String(queueURL), ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
			stalled = 0
		}
	}
}

// countingAPI passes every call to the real client and records its shape.
type countingAPI struct {
	sqs.API
	mu      sync.Mutex
	single  int
	batches []int
}

func (c *countingAPI) SendMessage(ctx context.Context, in *awssqs.SendMessageInput, opts ...func(*awssqs.Options)) (*awssqs.SendMessageOutput, error) {
	c.mu.Lock()
	c.single++
	c.mu.Unlock()
	return c.API.SendMessage(ctx, in, opts...)
}

func (c *countingAPI) SendMessageBatch(ctx context.Context, in *awssqs.SendMessageBatchInput, opts ...func(*awssqs.Options)) (*awssqs.SendMessageBatchOutput, error) {
	c.mu.Lock()
	c.batches = append(c.batches, len(in.Entries))
	c.mu.Unlock()
	return c.API.SendMessageBatch(ctx, in, opts...)
}

func envelopes(t *testing.T, n int) []queue.Envelope {
	t.Helper()
	var out []queue.Envelope
	for i := range n {
		env, err := queue.NewEnvelope(queue.TypeEnrichmentRequested, queue.EnrichmentRequested{ConceptID: fmt.Sprintf("TAX:IE:K%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, env)
	}
	return out
}

// receiveAll takes every message off the queue.
func receiveAll(t *testing.T, client *awssqs.Client, queueURL string) []types.Message {
	t.Helper()
	var all []types.Message
	consumeRaw := func() int {
		out, err := client.ReceiveMessage(context.Background(), &awssqs.ReceiveMessageInput{
			QueueUrl: aws.String(queueURL), MaxNumberOfMessages: 10, MessageAttributeNames: []string{"All"},
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAWSTraceHeader},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out.Messages {
			all = append(all, m)
			if _, err := client.DeleteMessage(context.Background(), &awssqs.DeleteMessageInput{QueueUrl: aws.String(queueURL), ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
		}
		return len(out.Messages)
	}
	for empty := 0; empty < 3; {
		if consumeRaw() == 0 {
			empty++
		} else {
			empty = 0
		}
	}
	return all
}

func TestPublishOneUsesSendMessageWithTypeAttributes(t *testing.T) {
	client := sqstest.Client(t)
	q := sqstest.NewQueue(t, client, "single", 3)
	api := &countingAPI{API: client}
	sent := envelopes(t, 1)[0]
	if err := sqs.NewPublisher(api, q.URL).Publish(context.Background(), sent); err != nil {
		t.Fatal(err)
	}
	if api.single != 1 || len(api.batches) != 0 {
		t.Fatalf("single=%d batches=%v, want one SendMessage", api.single, api.batches)
	}
	got := receiveAll(t, client, q.URL)
	if len(got) != 1 {
		t.Fatalf("queue holds %d messages, want 1", len(got))
	}
	env, err := queue.Decode([]byte(aws.ToString(got[0].Body)))
	if err != nil || env.ID != sent.ID {
		t.Fatalf("body decodes to %+v, %v", env, err)
	}
	attrs := got[0].MessageAttributes
	if aws.ToString(attrs["type"].StringValue) != queue.TypeEnrichmentRequested || aws.ToString(attrs["version"].StringValue) != "1" {
		t.Fatalf("message attributes = %+v, want type and version for filtering", attrs)
	}
}

func TestPublishManyChunksByTen(t *testing.T) {
	client := sqstest.Client(t)
	q := sqstest.NewQueue(t, client, "batches", 3)
	api := &countingAPI{API: client}
	if err := sqs.NewPublisher(api, q.URL).Publish(context.Background(), envelopes(t, 23)...); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(api.batches) != "[10 10 3]" || api.single != 0 {
		t.Fatalf("batches=%v single=%d, want [10 10 3] and no single sends", api.batches, api.single)
	}
	if got := receiveAll(t, client, q.URL); len(got) != 23 {
		t.Fatalf("queue holds %d messages, want 23", len(got))
	}
}

// refusingAPI sends batches to the real queue without the entries of the
// refused envelopes, and reports those as SQS reports refused entries. moto
// refuses entries only for a bad delay, and its answer then does not
// deserialise in the SDK, so the refusal itself is the one simulated part.
type refusingAPI struct {
	sqs.API
	refuse map[string]bool
}

func (r *refusingAPI) SendMessageBatch(ctx context.Context, in *awssqs.SendMessageBatchInput, opts ...func(*awssqs.Options)) (*awssqs.SendMessageBatchOutput, error) {
	accepted := *in
	accepted.Entries = nil
	var refused []types.BatchResultErrorEntry
	for _, e := range in.Entries {
		var env queue.Envelope
		if json.Unmarshal([]byte(aws.ToString(e.MessageBody)), &env) == nil && r.refuse[env.ID] {
			refused = append(refused, types.BatchResultErrorEntry{Id: e.Id, Code: aws.String("InternalError"), Message: aws.String("try again"), SenderFault: false})
			continue
		}
		accepted.Entries = append(accepted.Entries, e)
	}
	out, err := r.API.SendMessageBatch(ctx, &accepted, opts...)
	if err != nil {
		return nil, err
	}
	out.Failed = append(out.Failed, refused...)
	return out, nil
}

// Entries SQS refuses in an otherwise accepted batch are reported by
// envelope id; the others are sent.
func TestPublishReportsPartialFailuresByEnvelopeID(t *testing.T) {
	client := sqstest.Client(t)
	q := sqstest.NewQueue(t, client, "partial", 3)
	msgs := envelopes(t, 12)
	api := &refusingAPI{API: client, refuse: map[string]bool{msgs[3].ID: true, msgs[11].ID: true}}
	err := sqs.NewPublisher(api, q.URL).Publish(context.Background(), msgs...)
	var partial *sqs.PartialFailureError
	if !errors.As(err, &partial) {
		t.Fatalf("err = %v, want *PartialFailureError", err)
	}
	if strings.Join(partial.FailedIDs, ",") != msgs[3].ID+","+msgs[11].ID {
		t.Fatalf("failed = %v, want %s and %s", partial.FailedIDs, msgs[3].ID, msgs[11].ID)
	}
	if !strings.Contains(err.Error(), msgs[3].ID) {
		t.Fatalf("error does not name the failed id: %v", err)
	}
	if got := receiveAll(t, client, q.URL); len(got) != 10 {
		t.Fatalf("queue holds %d messages, want the 10 accepted", len(got))
	}
}

func TestPublishReturnsCallErrors(t *testing.T) {
	client := sqstest.Client(t)
	q := sqstest.NewQueue(t, client, "gone", 3)
	if _, err := client.DeleteQueue(context.Background(), &awssqs.DeleteQueueInput{QueueUrl: aws.String(q.URL)}); err != nil {
		t.Fatal(err)
	}
	pub := sqs.NewPublisher(client, q.URL)
	if err := pub.Publish(context.Background(), envelopes(t, 2)...); err == nil {
		t.Fatal("batch send to a deleted queue reported no error")
	}
	if err := pub.Publish(context.Background(), envelopes(t, 1)...); err == nil {
		t.Fatal("single send to a deleted queue reported no error")
	}
}

// Under a recording span every message carries its trace context; without
// one (tracing off) the messages carry only type and version.
func TestPublishCarriesTheTraceContextOnlyWhenTracing(t *testing.T) {
	client := sqstest.Client(t)
	q := sqstest.NewQueue(t, client, "traced", 3)
	pub := sqs.NewPublisher(client, q.URL)
	if err := pub.Publish(context.Background(), envelopes(t, 2)...); err != nil {
		t.Fatal(err)
	}
	for _, m := range receiveAll(t, client, q.URL) {
		if len(m.MessageAttributes) != 2 || m.Attributes[string(types.MessageSystemAttributeNameAWSTraceHeader)] != "" {
			t.Fatalf("untraced message attributes = %v, %v, want type and version only", m.MessageAttributes, m.Attributes)
		}
	}

	exporter := tracetest.NewInMemoryExporter()
	tracing.Install(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter)))
	t.Cleanup(tracing.Uninstall)
	ctx, turn := tracing.StartRoot(context.Background(), "turn")
	if err := pub.Publish(ctx, envelopes(t, 3)...); err != nil {
		t.Fatal(err)
	}
	turn.End()
	spans := exporter.GetSpans()
	if len(spans) != 2 || spans[0].Name != "sqs publish" {
		t.Fatalf("spans %v, want the publish and the turn", spans)
	}
	publish := spans[0].SpanContext
	got := receiveAll(t, client, q.URL)
	if len(got) != 3 {
		t.Fatalf("queue holds %d messages, want 3", len(got))
	}
	for _, m := range got {
		rec := events.SQSMessage{MessageAttributes: map[string]events.SQSMessageAttribute{}}
		for k, v := range m.MessageAttributes {
			rec.MessageAttributes[k] = events.SQSMessageAttribute{DataType: aws.ToString(v.DataType), StringValue: v.StringValue}
		}
		sc := trace.SpanContextFromContext(tracing.FromSQSRecord(context.Background(), rec))
		if sc.TraceID() != publish.TraceID() || sc.SpanID() != publish.SpanID() {
			t.Fatalf("message attributes %v do not carry the publish span %v", m.MessageAttributes, publish)
		}
	}
}

// headerRecorder passes calls to the real client and keeps the X-Ray
// header of every message sent.
type headerRecorder struct {
	sqs.API
	headers []string
}

func (h *headerRecorder) SendMessageBatch(ctx context.Context, in *awssqs.SendMessageBatchInput, opts ...func(*awssqs.Options)) (*awssqs.SendMessageBatchOutput, error) {
	for _, e := range in.Entries {
		h.headers = append(h.headers, aws.ToString(e.MessageSystemAttributes[string(types.MessageSystemAttributeNameForSendsAWSTraceHeader)].StringValue))
	}
	return h.API.SendMessageBatch(ctx, in, opts...)
}

// Every message of a traced publish names the publish span in its X-Ray
// header (AWSTraceHeader), from which X-Ray ties the consuming Lambda
// invocation to the turn's trace. moto keeps the header of a single send; for batches the
// entries sent are checked, as moto drops theirs.
func TestPublishSetsTheXRayHeader(t *testing.T) {
	client := sqstest.Client(t)
	q := sqstest.NewQueue(t, client, "xray", 3)
	exporter := tracetest.NewInMemoryExporter()
	tracing.Install(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter)))
	t.Cleanup(tracing.Uninstall)
	rec := &headerRecorder{API: client}
	pub := sqs.NewPublisher(rec, q.URL)
	for _, n := range []int{1, 3} {
		exporter.Reset()
		rec.headers = nil
		ctx, turn := tracing.StartRoot(context.Background(), "turn")
		if err := pub.Publish(ctx, envelopes(t, n)...); err != nil {
			t.Fatal(err)
		}
		turn.End()
		publish := exporter.GetSpans()[0].SpanContext
		headers := rec.headers
		if n == 1 {
			for _, m := range receiveAll(t, client, q.URL) {
				headers = append(headers, m.Attributes[string(types.MessageSystemAttributeNameAWSTraceHeader)])
			}
		} else {
			receiveAll(t, client, q.URL)
		}
		if len(headers) != n {
			t.Fatalf("%d headers for %d messages: %q", len(headers), n, headers)
		}
		for _, h := range headers {
			xray, ok := tracing.ParseXRayHeader(h)
			if !ok || xray.TraceID() != publish.TraceID() || xray.SpanID() != publish.SpanID() || !xray.IsSampled() {
				t.Fatalf("AWSTraceHeader %q does not name the publish span %v", h, publish)
			}
		}
	}
}
