// Package sqs is the queue.Publisher on Amazon SQS (aws-sdk-go-v2): one
// SendMessage for a single envelope, SendMessageBatch in chunks of ten for
// several, and partial batch failures reported by envelope id.
package sqs

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"regintel/shared/queue"
	"regintel/shared/tracing"
)

// MaxBatch is the SQS limit on entries per SendMessageBatch.
const MaxBatch = 10

// API is the part of the SQS client the publisher uses (a fake in unit
// tests, *sqs.Client otherwise).
type API interface {
	SendMessage(ctx context.Context, in *awssqs.SendMessageInput, opts ...func(*awssqs.Options)) (*awssqs.SendMessageOutput, error)
	SendMessageBatch(ctx context.Context, in *awssqs.SendMessageBatchInput, opts ...func(*awssqs.Options)) (*awssqs.SendMessageBatchOutput, error)
}

// NewClient loads the default AWS configuration (environment, shared
// config, Lambda role) and returns an SQS client. A non-empty endpoint
// overrides the service endpoint (moto in tests, LocalStack locally).
func NewClient(ctx context.Context, endpoint string) (*awssqs.Client, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("load AWS config: %w", err)
	}
	return awssqs.NewFromConfig(cfg, func(o *awssqs.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	}), nil
}

// Publisher publishes envelopes to one queue URL.
type Publisher struct {
	client   API
	queueURL string
	fifo     bool
}

// NewPublisher returns a publisher for queueURL. FIFO queues (".fifo") get
// the message type as group id and the envelope id as deduplication id.
func NewPublisher(client API, queueURL string) *Publisher {
	return &Publisher{client: client, queueURL: queueURL, fifo: strings.HasSuffix(queueURL, ".fifo")}
}

// PartialFailureError names the envelopes SQS refused in a batch; the others
// were sent. Resending all is safe: consumers are idempotent by id.
type PartialFailureError struct {
	FailedIDs []string
	Reasons   []string
}

func (e *PartialFailureError) Error() string {
	return fmt.Sprintf("sqs refused %d message(s): %s (%s)", len(e.FailedIDs), strings.Join(e.FailedIDs, ", "), strings.Join(e.Reasons, "; "))
}

// Publish sends msgs: one SendMessage for one envelope, otherwise
// SendMessageBatch per ten. It stops at the first call that fails outright;
// refused entries of otherwise successful batches are collected into one
// *PartialFailureError.
func (p *Publisher) Publish(ctx context.Context, msgs ...queue.Envelope) (err error) {
	if len(msgs) == 0 {
		return nil
	}
	ctx, span := tracing.Start(ctx, "sqs publish", trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(attribute.String("messaging.system", "aws_sqs"), attribute.Int("messaging.batch.message_count", len(msgs))))
	defer func() { tracing.End(span, err) }()
	if len(msgs) == 1 {
		return p.sendOne(ctx, msgs[0])
	}
	partial := &PartialFailureError{}
	for start := 0; start < len(msgs); start += MaxBatch {
		chunk := msgs[start:min(start+MaxBatch, len(msgs))]
		if err := p.sendBatch(ctx, chunk, partial); err != nil {
			return err
		}
	}
	if len(partial.FailedIDs) > 0 {
		return partial
	}
	return nil
}

func (p *Publisher) sendOne(ctx context.Context, env queue.Envelope) error {
	body, err := json.Marshal(env)
	if err != nil {
		return fmt.Errorf("marshal envelope %s: %w", env.ID, err)
	}
	in := &awssqs.SendMessageInput{QueueUrl: aws.String(p.queueURL), MessageBody: aws.String(string(body)),
		MessageAttributes: attributes(ctx, env), MessageSystemAttributes: systemAttributes(ctx)}
	if p.fifo {
		in.MessageGroupId, in.MessageDeduplicationId = aws.String(env.Type), aws.String(env.ID)
	}
	if _, err := p.client.SendMessage(ctx, in); err != nil {
		return fmt.Errorf("sqs send %s %s: %w", env.Type, env.ID, err)
	}
	return nil
}

func (p *Publisher) sendBatch(ctx context.Context, chunk []queue.Envelope, partial *PartialFailureError) error {
	entries := make([]types.SendMessageBatchRequestEntry, 0, len(chunk))
	for i, env := range chunk {
		body, err := json.Marshal(env)
		if err != nil {
			return fmt.Errorf("marshal envelope %s: %w", env.ID, err)
		}
		// Entry ids are positions: envelope ids need not satisfy SQS's
		// entry id rules and must not collide within a batch.
		e := types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(string(body)),
			MessageAttributes: attributes(ctx, env), MessageSystemAttributes: systemAttributes(ctx)}
		if p.fifo {
			e.MessageGroupId, e.MessageDeduplicationId = aws.String(env.Type), aws.String(env.ID)
		}
		entries = append(entries, e)
	}
	out, err := p.client.SendMessageBatch(ctx, &awssqs.SendMessageBatchInput{QueueUrl: aws.String(p.queueURL), Entries: entries})
	if err != nil {
		return fmt.Errorf("sqs send batch of %d: %w", len(chunk), err)
	}
	for _, f := range out.Failed {
		i, convErr := strconv.Atoi(aws.ToString(f.Id))
		id := aws.ToString(f.Id)
		if convErr == nil && i >= 0 && i < len(chunk) {
			id = chunk[i].ID
		}
		partial.FailedIDs = append(partial.FailedIDs, id)
		partial.Reasons = append(partial.Reasons, aws.ToString(f.Code)+": "+aws.ToString(f.Message))
	}
	return nil
}

// attributes lets consumers and subscriptions filter by type without
// parsing the body, and carry the trace context so the consumer's spans
// join the publisher's trace.
func attributes(ctx context.Context, env queue.Envelope) map[string]types.MessageAttributeValue {
	attrs := map[string]types.MessageAttributeValue{
		"type":    {DataType: aws.String("String"), StringValue: aws.String(env.Type)},
		"version": {DataType: aws.String("Number"), StringValue: aws.String(strconv.Itoa(env.Version))},
	}
	for k, v := range tracing.Inject(ctx) {
		attrs[k] = types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
	}
	return attrs
}

// systemAttributes carries the publish span as the X-Ray trace header
// (AWSTraceHeader), from which X-Ray ties the consuming function's Lambda
// invocation to the turn's trace (our own spans join that trace through
// the message attributes); nil when not tracing.
func systemAttributes(ctx context.Context) map[string]types.MessageSystemAttributeValue {
	header := tracing.XRayHeader(trace.SpanContextFromContext(ctx))
	if header == "" {
		return nil
	}
	return map[string]types.MessageSystemAttributeValue{
		string(types.MessageSystemAttributeNameForSendsAWSTraceHeader): {DataType: aws.String("String"), StringValue: aws.String(header)},
	}
}
