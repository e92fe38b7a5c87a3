package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"

	"regintel/shared/auth"
	"regintel/shared/chat"
	"regintel/shared/concept"
	convpg "regintel/shared/conversation/postgres"
	"regintel/shared/graph"
	"regintel/shared/graph/bolt"
	"regintel/shared/graph/bolt/bolttest"
	"regintel/shared/graph/write"
	"regintel/shared/httpapi"
	"regintel/shared/llm/llmtest"
	"regintel/shared/llm/openai"
	"regintel/shared/pgpool/pgtest"
	"regintel/shared/queue"
	"regintel/shared/queue/sqs"
	"regintel/shared/queue/sqs/sqstest"
	"regintel/shared/resolver"
)

// newQueue is a fresh moto queue's URL.
func newQueue(t *testing.T, c *awssqs.Client, name string) string {
	t.Helper()
	return sqstest.NewQueue(t, c, name, 3).URL
}

func receiveAll(t *testing.T, c *awssqs.Client, url string) []events.SQSMessage {
	t.Helper()
	out, err := c.ReceiveMessage(context.Background(), &awssqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []events.SQSMessage
	for _, m := range out.Messages {
		msgs = append(msgs, events.SQSMessage{MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle),
			Body: aws.ToString(m.Body), EventSource: "aws:sqs", EventSourceARN: "arn:aws:sqs:eu-west-1:000000000000:concepts"})
	}
	return msgs
}

// pipeline is the chat API on Postgres, Bolt, moto's SQS and a fake model,
// with the resolver handler run on what the chat path publishes.
type pipeline struct {
	client                 *awssqs.Client
	graph                  *bolt.Store
	conceptsURL, enrichURL string
	fake                   *llmtest.Server
	srv                    *httptest.Server
	quiet                  *slog.Logger
}

func newPipeline(t *testing.T, client *awssqs.Client, poolConns int32) *pipeline {
	t.Helper()
	p := &pipeline{client: client, graph: bolttest.Open(t), fake: llmtest.NewServer(t), quiet: slog.New(slog.NewTextHandler(io.Discard, nil))}
	p.conceptsURL, p.enrichURL = newQueue(t, client, "concepts"), newQueue(t, client, "enrichment")
	engine := chat.New(chat.Deps{
		Store: convpg.New(pgtest.NewMigratedPool(t, poolConns)), Graph: p.graph,
		Provider: openai.NewResponses(openai.Config{APIKey: "k", BaseURL: p.fake.BaseURL(), Model: "gpt-test"}),
		Concepts: sqs.NewPublisher(client, p.conceptsURL), Log: p.quiet,
	}, chat.Config{Model: "gpt-test", GraphTimeout: 30 * time.Second}) // a cold Neo4j compiles the grounding query slowly under load
	p.srv = httptest.NewServer(httpapi.New(httpapi.Options{Auth: auth.Dev{DefaultTenant: "t", DefaultUser: "u"}, Engine: engine, Log: p.quiet}))
	t.Cleanup(p.srv.Close)
	return p
}

// turn posts a chat request and returns its whole stream.
func (p *pipeline) turn(t *testing.T, body string) string {
	t.Helper()
	resp, err := http.Post(p.srv.URL+"/chat", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// resolve runs the resolver Lambda handler on msgs as SQS would deliver them.
func (p *pipeline) resolve(t *testing.T, msgs []events.SQSMessage) {
	t.Helper()
	handler := resolver.New(write.NewService(p.graph, write.WithLogger(p.quiet)), sqs.NewPublisher(p.client, p.enrichURL), resolver.WithLogger(p.quiet))
	res, err := handler.HandleSQS(context.Background(), events.SQSEvent{Records: msgs})
	if err != nil || len(res.BatchItemFailures) != 0 {
		t.Fatalf("resolver: %v %+v", err, res)
	}
}

func TestChatToSQSToResolverToBoltAndBackIntoThePrompt(t *testing.T) {
	p := newPipeline(t, sqstest.Client(t), 8)

	// A kind unique to this run, so the concept is new to the shared test
	// graph; outside the vocabulary, so the capture makes no node: the
	// concept stays in the conversation until an official page names it.
	unique := uniqueLetters()
	kind := "ENDTOEND_" + unique
	conceptID := "TAX:IE:" + kind
	label := "End-to-end relief " + unique
	p.fake.Enqueue(llmtest.Script{Steps: llmtest.Steps(llmtest.Words("The relief applies to qualifying expenditure."),
		llmtest.ToolCallJSON("capture_concepts", map[string]any{"concepts": []map[string]any{{
			"domain": "TAX", "kind": kind, "jurisdiction": "IE", "prefLabel": label,
			"definition": "a test relief on qualifying expenditure", "sourceUrls": []string{"https://www.revenue.ie/en/"}}}}, 6))})
	p.fake.Enqueue(llmtest.TextScript("Yes, within the limits."))

	first := p.turn(t, `{"message":"Which relief applies?","profile":{"jurisdictions":["IE"]}}`)
	if !strings.Contains(first, `"referencedNodes":["`+conceptID+`"]`) {
		t.Fatalf("turn 1 stream:\n%s", first)
	}
	convID := conversationIDOf(first)
	p.resolveCapture(t, conceptID, convID)
	rateID, source := p.enrichWithRate(t, conceptID, label)

	second := p.turn(t, `{"conversationId":"`+convID+`","message":"Does it apply to me?"}`)
	checkSecondTurn(t, p.fake.Requests(), second, label, rateID, source)
}

// conversationIDOf reads the conversation id from a stream's metadata frame.
func conversationIDOf(stream string) string {
	var convID string
	for _, frame := range strings.Split(stream, "\n\n") {
		// A frame's lines come in any order (a recorded turn's carry an id).
		if lines := strings.Split(frame, "\n"); slices.Contains(lines, "event: metadata") {
			for _, line := range lines {
				if data, ok := strings.CutPrefix(line, "data: "); ok {
					var m struct{ ConversationID string }
					_ = json.Unmarshal([]byte(data), &m)
					convID = m.ConversationID
				}
			}
		}
	}
	return convID
}

// resolveCapture checks the chat path published one clean concepts.captured
// message, has the resolver consume it, and checks that no shared node and
// one held enrichment job follow.
func (p *pipeline) resolveCapture(t *testing.T, conceptID, convID string) {
	t.Helper()
	msgs := receiveAll(t, p.client, p.conceptsURL)
	if len(msgs) != 1 {
		t.Fatalf("concepts queue holds %d messages, want 1", len(msgs))
	}
	env, err := queue.Decode([]byte(msgs[0].Body))
	if err != nil || env.Type != queue.TypeConceptsCaptured || strings.Contains(msgs[0].Body, "Which relief") || strings.Contains(msgs[0].Body, convID) {
		t.Fatalf("message is not a clean concepts.captured envelope: %v %s", err, msgs[0].Body)
	}
	p.resolve(t, msgs)
	// A kind outside the vocabulary makes no shared node: its id is the
	// tenant's model's text.
	nodes, err := p.graph.GetNodesByIDs(context.Background(), []string{conceptID})
	if err != nil || len(nodes) != 0 {
		t.Fatalf("graph node: %+v %v", nodes, err)
	}
	// Exactly one enrichment job, held: a node only if a page names it.
	jobs := receiveAll(t, p.client, p.enrichURL)
	if len(jobs) != 1 {
		t.Fatalf("enrichment jobs: %+v", jobs)
	}
	env, err = queue.Decode([]byte(jobs[0].Body))
	if err != nil {
		t.Fatal(err)
	}
	job, err := queue.DecodeEnrichmentRequested(env)
	if err != nil || job.ConceptID != conceptID || !job.Held {
		t.Fatalf("enrichment job %+v, %v: want the concept, held", job, err)
	}
}

// enrichWithRate does what the enrich function does once an official page
// names the held concept: writes it as official, then a rate through the
// guarded write service, and marks the concept verified.
func (p *pipeline) enrichWithRate(t *testing.T, conceptID, label string) (rateID, source string) {
	t.Helper()
	rateID = conceptID + ":RATE:STANDARD"
	verified := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	source = "https://www.revenue.ie/en/tax-relief-charts/index.aspx"
	writes := write.NewService(p.graph, write.WithLogger(p.quiet))
	parts := strings.Split(conceptID, ":")
	named := concept.Concept{Domain: parts[0], Jurisdiction: parts[1], Kind: parts[2], PrefLabel: label, SourceURLs: []string{source}}
	if res, err := writes.ResolveConcepts(context.Background(), []concept.Concept{named}, graph.ProvenanceOfficial); err != nil || len(res.Written) != 1 {
		t.Fatalf("official concept: %+v, %v", res, err)
	}
	if _, err := writes.Write(context.Background(), []graph.NodeWrite{
		{Label: "Rate", ID: rateID, Props: map[string]any{"pref_label": label + " rate", "percent": 12.5, "source_url": source,
			"quote": "relief at 12.5%", "jurisdiction": "IE", "domain": "TAX", "provenance": "official"}},
		{Label: "Concept", ID: conceptID, Props: map[string]any{"last_verified_at": verified}},
	}, []graph.EdgeWrite{{FromID: conceptID, Type: "HAS_RATE", ToID: rateID, Props: map[string]any{"source_urls": []string{source}}}}); err != nil {
		t.Fatal(err)
	}
	return rateID, source
}

// checkSecondTurn: turn 2's prompt names the concept by the label this
// conversation captured, with its fact from the Bolt graph, as fenced data
// after the history, never in the instructions; the captured definition
// reaches no part of the request; the metadata cites the fact with its
// source.
func checkSecondTurn(t *testing.T, reqs []llmtest.RecordedRequest, second, label, rateID, source string) {
	t.Helper()
	var data strings.Builder
	if len(reqs) == 2 {
		for _, m := range reqs[1].Messages {
			data.WriteString(m.Content + "\n")
		}
	}
	if len(reqs) != 2 || !strings.Contains(data.String(), "- "+label+" (IE)") || bytes.Contains(reqs[1].Body, []byte("a test relief on qualifying expenditure")) ||
		!strings.Contains(data.String(), "percent: 12.5") || !strings.Contains(data.String(), source) || strings.Contains(reqs[1].System, label) {
		t.Fatalf("turn 2's data lacks the Bolt concept or its fact, or the instructions hold them:\n%s\ninstructions:\n%s", data.String(), reqs[len(reqs)-1].System)
	}
	if !strings.Contains(second, `{"nodeId":"`+rateID+`","label":"`+label+` rate","value":12.5,"unit":"%","validFrom":null,"validTo":null,"url":"`+source+`","lastVerifiedAt":"2026-11-02T09:00:00Z","mayBeOutdated":`) {
		t.Fatalf("turn 2 metadata does not cite the fact:\n%s", second)
	}
}

// uniqueLetters is eight capitals unique to the run: a uuid's hex with its
// digits read as letters, since a kind takes few digits.
func uniqueLetters() string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return 'G' + r - '0'
		}
		return r - 'a' + 'A'
	}, uuid.NewString()[:8])
}
