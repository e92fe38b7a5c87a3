package resolver

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"regintel/shared/concept"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/graph/write"
	"regintel/shared/queue"
	"regintel/shared/queue/sqs"
	"regintel/shared/queue/sqs/sqstest"
)

const maxReceiveCount = 2

// receive does one ReceiveMessage (up to 10) and converts the messages into
// the event Lambda's SQS event source mapping would deliver.
func receive(t *testing.T, client *awssqs.Client, queueURL, queueARN string) events.SQSEvent {
	t.Helper()
	out, err := client.ReceiveMessage(context.Background(), &awssqs.ReceiveMessageInput{
		QueueUrl:                    aws.String(queueURL),
		MaxNumberOfMessages:         10,
		WaitTimeSeconds:             1,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
		MessageAttributeNames:       []string{"All"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var ev events.SQSEvent
	for _, m := range out.Messages {
		ev.Records = append(ev.Records, events.SQSMessage{
			MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle), Body: aws.ToString(m.Body),
			Attributes: m.Attributes, EventSource: "aws:sqs", EventSourceARN: queueARN, AWSRegion: "eu-west-1",
		})
	}
	return ev
}

// receiveAll receives until want messages arrived or a bounded number of
// empty polls passed.
func receiveAll(t *testing.T, client *awssqs.Client, queueURL, queueARN string, want int) events.SQSEvent {
	t.Helper()
	var all events.SQSEvent
	for empty := 0; len(all.Records) < want && empty < 5; {
		ev := receive(t, client, queueURL, queueARN)
		if len(ev.Records) == 0 {
			empty++
		}
		all.Records = append(all.Records, ev.Records...)
	}
	if len(all.Records) != want {
		t.Fatalf("received %d messages, want %d", len(all.Records), want)
	}
	return all
}

// ack deletes the records not reported as failed, as the event source
// mapping does after a successful invocation.
func ack(t *testing.T, client *awssqs.Client, queueURL string, ev events.SQSEvent, resp events.SQSEventResponse) {
	t.Helper()
	failed := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		failed[f.ItemIdentifier] = true
	}
	for _, r := range ev.Records {
		if failed[r.MessageId] {
			continue
		}
		if _, err := client.DeleteMessage(context.Background(), &awssqs.DeleteMessageInput{QueueUrl: aws.String(queueURL), ReceiptHandle: aws.String(r.ReceiptHandle)}); err != nil {
			t.Fatal(err)
		}
	}
}

type sqsFixture struct {
	client                   *awssqs.Client
	conceptsURL, conceptsDLQ string
	conceptsARN              string
	enrichURL, enrichARN     string
	graph                    *graphmem.Store
	writes                   *write.Service
	handler                  *Handler
	logs                     *bytes.Buffer
	conceptsPub              *sqs.Publisher
}

func newSQSFixture(t *testing.T) *sqsFixture {
	f := &sqsFixture{client: sqstest.Client(t), graph: graphmem.New(), logs: &bytes.Buffer{}}
	concepts := sqstest.NewQueue(t, f.client, "concepts", maxReceiveCount)
	f.conceptsURL, f.conceptsDLQ, f.conceptsARN = concepts.URL, concepts.DLQURL, concepts.ARN
	enrichment := sqstest.NewQueue(t, f.client, "enrichment", maxReceiveCount)
	f.enrichURL, f.enrichARN = enrichment.URL, enrichment.ARN
	log := slog.New(slog.NewJSONHandler(f.logs, nil))
	f.writes = write.NewService(f.graph, write.WithLogger(log))
	f.handler = New(f.writes, sqs.NewPublisher(f.client, f.enrichURL), WithLogger(log))
	f.conceptsPub = sqs.NewPublisher(f.client, f.conceptsURL)
	return f
}

func capturedEnvelope(t *testing.T, cs ...concept.Concept) queue.Envelope {
	t.Helper()
	env, err := queue.NewEnvelope(queue.TypeConceptsCaptured, queue.ConceptsCaptured{Concepts: cs})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func TestSQSPublishReceiveResolveAndEnrich(t *testing.T) {
	f := newSQSFixture(t)
	ctx := context.Background()
	vat, vrt, sp := mk("tax", "IE", "VAT", "Value-Added Tax"), mk("vehicles", "IE", "VRT", "Vehicle Registration Tax"), mk("pensions", "UK", "State Pension", "State Pension")
	// Two turns' messages in one Publish: one SendMessageBatch.
	if err := f.conceptsPub.Publish(ctx, capturedEnvelope(t, vat, vrt), capturedEnvelope(t, sp)); err != nil {
		t.Fatal(err)
	}
	ev := receiveAll(t, f.client, f.conceptsURL, f.conceptsARN, 2)
	resp, err := f.handler.HandleSQS(ctx, ev)
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	ack(t, f.client, f.conceptsURL, ev, resp)

	nodes, err := f.graph.GetNodesByIDs(ctx, []string{vat.ID, vrt.ID, sp.ID})
	if err != nil || len(nodes) != 3 {
		t.Fatalf("graph holds %d of 3 concepts (err %v)", len(nodes), err)
	}
	// None has detail yet: one enrichment job each, on the enrichment queue.
	jobs := receiveAll(t, f.client, f.enrichURL, f.enrichARN, 3)
	got := map[string]bool{}
	for _, r := range jobs.Records {
		env, err := queue.Decode([]byte(r.Body))
		if err != nil {
			t.Fatal(err)
		}
		req, err := queue.DecodeEnrichmentRequested(env)
		if err != nil {
			t.Fatal(err)
		}
		got[req.ConceptID] = true
	}
	if !got[vat.ID] || !got[vrt.ID] || !got[sp.ID] {
		t.Fatalf("enrichment jobs for %v", got)
	}
	if rest := receive(t, f.client, f.conceptsURL, f.conceptsARN); len(rest.Records) != 0 {
		t.Fatalf("%d concept messages left after a successful batch", len(rest.Records))
	}
}

func TestSQSPoisonRecordEndsInDeadLetterQueue(t *testing.T) {
	f := newSQSFixture(t)
	ctx := context.Background()
	poison := "{not json"
	if _, err := f.client.SendMessage(ctx, &awssqs.SendMessageInput{QueueUrl: aws.String(f.conceptsURL), MessageBody: aws.String(poison)}); err != nil {
		t.Fatal(err)
	}
	if err := f.conceptsPub.Publish(ctx, capturedEnvelope(t, mk("tax", "IE", "CGT", "Capital Gains Tax"))); err != nil {
		t.Fatal(err)
	}

	var poisonID string
	deliveries := 0
	// Each round is one Lambda invocation: the poison record is reported
	// failed, stays on the queue, and after maxReceiveCount receives SQS
	// moves it to the dead-letter queue. Bounded by rounds, not by time.
	for round := 0; round < 10; round++ {
		ev := receive(t, f.client, f.conceptsURL, f.conceptsARN)
		if len(ev.Records) == 0 {
			if deliveries >= maxReceiveCount {
				break
			}
			continue
		}
		resp, err := f.handler.HandleSQS(ctx, ev)
		if err != nil {
			t.Fatal(err)
		}
		failed := map[string]bool{}
		for _, fl := range resp.BatchItemFailures {
			failed[fl.ItemIdentifier] = true
		}
		for _, r := range ev.Records {
			if r.Body == poison {
				poisonID = r.MessageId
				deliveries++
				if !failed[r.MessageId] {
					t.Fatalf("poison record %s not in BatchItemFailures %+v", r.MessageId, resp)
				}
			} else if failed[r.MessageId] {
				t.Fatalf("good record %s reported failed", r.MessageId)
			}
		}
		ack(t, f.client, f.conceptsURL, ev, resp)
	}
	if deliveries != maxReceiveCount {
		t.Fatalf("poison record delivered %d times, want maxReceiveCount=%d", deliveries, maxReceiveCount)
	}
	dead := receiveAll(t, f.client, f.conceptsDLQ, "", 1)
	if dead.Records[0].Body != poison || dead.Records[0].MessageId != poisonID {
		t.Fatalf("dead-letter queue holds %+v", dead.Records[0])
	}
	if !strings.Contains(f.logs.String(), `"message_id":"`+poisonID+`"`) {
		t.Fatal("poison record not logged with its message id")
	}
	if nodes, _ := f.graph.GetNodesByIDs(ctx, []string{"TAX:IE:CGT"}); len(nodes) != 1 {
		t.Fatal("the good record next to the poison one was not written")
	}
}

func TestSQSBatchWithPIIConceptWritesTheCleanOnes(t *testing.T) {
	f := newSQSFixture(t)
	ctx := context.Background()
	clean1, clean2 := mk("welfare", "IE", "Child Benefit", "Child Benefit"), mk("tax", "UK", "Income Tax", "Income Tax")
	leaky := concept.Normalize(concept.Concept{Domain: "welfare", Jurisdiction: "IE", Kind: "Carers Allowance", PrefLabel: "Carer's Allowance",
		Definition: "Paid into IE29 AIBK 9311 5212 3456 78"})
	if err := f.conceptsPub.Publish(ctx, capturedEnvelope(t, clean1, leaky, clean2)); err != nil {
		t.Fatal(err)
	}
	ev := receiveAll(t, f.client, f.conceptsURL, f.conceptsARN, 1)
	resp, err := f.handler.HandleSQS(ctx, ev)
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("a PII rejection failed the record: %+v %v", resp, err)
	}
	ack(t, f.client, f.conceptsURL, ev, resp)
	nodes, _ := f.graph.GetNodesByIDs(ctx, []string{clean1.ID, clean2.ID, leaky.ID})
	if len(nodes) != 2 {
		t.Fatalf("graph holds %d nodes, want the two clean concepts", len(nodes))
	}
	if st := f.writes.Stats(); st.Rejected != 1 || st.RejectedByReason[write.ReasonPIIValue] != 1 {
		t.Fatalf("rejection not counted: %+v", st)
	}
	if !strings.Contains(f.logs.String(), `"concept_id":"`+leaky.ID+`"`) || strings.Contains(f.logs.String(), "AIBK") {
		t.Fatalf("rejection log wrong or leaky: %s", f.logs.String())
	}
}
