package resolver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"regintel/shared/concept"
	"regintel/shared/graph"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/graph/write"
	"regintel/shared/queue"
	"regintel/shared/queue/inprocess"
)

// countingStore counts write calls and can fail writes that contain a given
// concept id, or detail checks.
type countingStore struct {
	*graphmem.Store
	mu           sync.Mutex
	upserts      int
	failIfHas    string
	failAll      bool
	failDetailOf string
}

func (s *countingStore) UpsertConcepts(ctx context.Context, cs []concept.Concept, prov graph.Provenance, now time.Time) error {
	s.mu.Lock()
	s.upserts++
	s.mu.Unlock()
	if s.failAll {
		return errors.New("graph unavailable")
	}
	for _, c := range cs {
		if c.ID == s.failIfHas {
			return errors.New("write conflict")
		}
	}
	return s.Store.UpsertConcepts(ctx, cs, prov, now)
}

func (s *countingStore) HasUsefulDetail(ctx context.Context, id string, since time.Time) (bool, error) {
	if id == s.failDetailOf {
		return false, errors.New("read timeout")
	}
	return s.Store.HasUsefulDetail(ctx, id, since)
}

type recordingPublisher struct {
	mu    sync.Mutex
	calls int
	msgs  []queue.Envelope
	err   error
}

func (p *recordingPublisher) Publish(_ context.Context, msgs ...queue.Envelope) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	if p.err != nil {
		return p.err
	}
	p.msgs = append(p.msgs, msgs...)
	return nil
}

func (p *recordingPublisher) conceptIDs(t *testing.T) []string {
	var ids []string
	for _, env := range p.msgs {
		req, err := queue.DecodeEnrichmentRequested(env)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, req.ConceptID)
	}
	slices.Sort(ids)
	return ids
}

func record(t *testing.T, msgID string, concepts ...concept.Concept) events.SQSMessage {
	t.Helper()
	env, err := queue.NewEnvelope(queue.TypeConceptsCaptured, queue.ConceptsCaptured{Concepts: concepts})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(env)
	return events.SQSMessage{MessageId: msgID, Body: string(body), EventSource: "aws:sqs"}
}

func mk(domain, jur, kind, label string) concept.Concept {
	return concept.Normalize(concept.Concept{Domain: domain, Jurisdiction: jur, Kind: kind, PrefLabel: label})
}

type fixture struct {
	store  *countingStore
	writes *write.Service
	enrich *recordingPublisher
	h      *Handler
	logs   *bytes.Buffer
	now    time.Time
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{store: &countingStore{Store: graphmem.New()}, enrich: &recordingPublisher{}, logs: &bytes.Buffer{},
		now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	log := slog.New(slog.NewJSONHandler(f.logs, nil))
	clock := func() time.Time { return f.now }
	f.writes = write.NewService(f.store, write.WithLogger(log), write.WithClock(clock))
	f.h = New(f.writes, f.enrich, WithLogger(log), WithClock(clock))
	return f
}

func failedIDs(resp events.SQSEventResponse) []string {
	var ids []string
	for _, f := range resp.BatchItemFailures {
		ids = append(ids, f.ItemIdentifier)
	}
	slices.Sort(ids)
	return ids
}

func TestBatchWritesOnceAndEnrichesOnlySparseConcepts(t *testing.T) {
	f := newFixture(t)
	vat, vrt, cgt := mk("tax", "IE", "VAT", "Value-Added Tax"), mk("vehicles", "IE", "VRT", "Vehicle Registration Tax"), mk("tax", "IE", "CGT", "Capital Gains Tax")
	// VAT already has a rate: useful detail, no enrichment.
	if err := f.store.Store.UpsertConcepts(context.Background(), []concept.Concept{vat}, graph.ProvenanceOfficial, f.now); err != nil {
		t.Fatal(err)
	}
	if err := f.store.UpsertNode("Rate", "RATE:IE:VAT_STANDARD", map[string]any{"percent": 23.0, graph.ProvenanceKey: "official"}, f.now); err != nil {
		t.Fatal(err)
	}
	if err := f.store.UpsertEdge(vat.ID, "HAS_RATE", "RATE:IE:VAT_STANDARD"); err != nil {
		t.Fatal(err)
	}
	f.store.upserts = 0
	ev := events.SQSEvent{Records: []events.SQSMessage{record(t, "m1", vat, vrt), record(t, "m2", cgt, vrt)}}

	resp, err := f.h.HandleSQS(context.Background(), ev)
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	if f.store.upserts != 1 {
		t.Fatalf("UpsertConcepts calls = %d, want 1 for the whole batch", f.store.upserts)
	}
	nodes, _ := f.store.GetNodesByIDs(context.Background(), []string{vat.ID, vrt.ID, cgt.ID})
	if len(nodes) != 3 {
		t.Fatalf("graph has %d of the 3 concepts", len(nodes))
	}
	if got := f.enrich.conceptIDs(t); strings.Join(got, ",") != "TAX:IE:CGT,VEHICLES:IE:VRT" || f.enrich.calls != 1 {
		t.Fatalf("enrichment requested for %v in %d calls", got, f.enrich.calls)
	}
	req, _ := queue.DecodeEnrichmentRequested(f.enrich.msgs[0])
	if req.Domain == "" || req.Kind == "" || req.Jurisdiction == "" {
		t.Fatalf("enrichment request lacks fields: %+v", req)
	}

	// Redelivery of the same batch is harmless: same nodes, no new jobs.
	if resp, _ := f.h.HandleSQS(context.Background(), ev); len(resp.BatchItemFailures) != 0 {
		t.Fatalf("redelivery failed: %+v", resp)
	}
	if len(f.enrich.msgs) != 2 {
		t.Fatalf("redelivery queued more enrichment: %d", len(f.enrich.msgs))
	}
	// After the freshness window a concept still without detail is queued again.
	f.now = f.now.Add(DefaultFreshness + time.Hour)
	_, _ = f.h.HandleSQS(context.Background(), events.SQSEvent{Records: []events.SQSMessage{record(t, "m3", vrt)}})
	if len(f.enrich.msgs) != 3 {
		t.Fatalf("stale concept not re-queued: %d", len(f.enrich.msgs))
	}
}

func TestInvalidRecordsFailAndOthersProceed(t *testing.T) {
	f := newFixture(t)
	vat := mk("tax", "IE", "VAT", "VAT")
	ev := events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "bad-json", Body: `{"type":"concepts.captured",`},
		{MessageId: "unknown-type", Body: `{"type":"chat.text","version":1,"id":"x","payload":{}}`},
		{MessageId: "no-concepts", Body: `{"type":"concepts.captured","version":1,"id":"y","payload":{"concepts":[]}}`},
		record(t, "good", vat),
	}}
	resp, err := f.h.HandleSQS(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(failedIDs(resp), ","); got != "bad-json,no-concepts,unknown-type" {
		t.Fatalf("failures = %s", got)
	}
	if nodes, _ := f.store.GetNodesByIDs(context.Background(), []string{vat.ID}); len(nodes) != 1 {
		t.Fatal("the good record was not written")
	}
	if !strings.Contains(f.logs.String(), `"message_id":"bad-json"`) {
		t.Fatalf("invalid record not logged with its id: %s", f.logs.String())
	}
}

func TestPIIConceptIsRejectedWithoutFailingTheRecord(t *testing.T) {
	f := newFixture(t)
	clean1, clean2 := mk("welfare", "IE", "Jobseekers Benefit", "Jobseeker's Benefit"), mk("pensions", "UK", "State Pension", "State Pension")
	leaky := concept.Normalize(concept.Concept{Domain: "tax", Jurisdiction: "UK", Kind: "Income Tax", PrefLabel: "Income tax",
		Definition: "for NI number AB 12 34 56 C"})
	resp, _ := f.h.HandleSQS(context.Background(), events.SQSEvent{Records: []events.SQSMessage{record(t, "m1", clean1, leaky, clean2)}})
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("a PII rejection failed the record: %+v", resp)
	}
	nodes, _ := f.store.GetNodesByIDs(context.Background(), []string{clean1.ID, clean2.ID, leaky.ID})
	if len(nodes) != 2 {
		t.Fatalf("graph has %d nodes, want the two clean ones", len(nodes))
	}
	for _, n := range nodes {
		if n.ID == leaky.ID {
			t.Fatal("PII-bearing concept was written")
		}
	}
	if st := f.writes.Stats(); st.Rejected != 1 || st.RejectedByReason[write.ReasonPIIValue] != 1 {
		t.Fatalf("stats %+v", st)
	}
	if strings.Contains(f.logs.String(), "AB 12 34 56 C") {
		t.Fatal("logs leaked the NINO")
	}
	if slices.Contains(f.enrich.conceptIDs(t), leaky.ID) {
		t.Fatal("enrichment requested for a rejected concept")
	}
}

func TestTransientWriteFailureFailsOnlyAffectedRecords(t *testing.T) {
	f := newFixture(t)
	vat, vrt := mk("tax", "IE", "VAT", "VAT"), mk("vehicles", "IE", "VRT", "VRT")
	f.store.failIfHas = vrt.ID
	resp, _ := f.h.HandleSQS(context.Background(), events.SQSEvent{Records: []events.SQSMessage{record(t, "ok", vat), record(t, "conflict", vrt)}})
	if got := strings.Join(failedIDs(resp), ","); got != "conflict" {
		t.Fatalf("failures = %s, want only the record whose write failed", got)
	}
	if nodes, _ := f.store.GetNodesByIDs(context.Background(), []string{vat.ID}); len(nodes) != 1 {
		t.Fatal("unaffected record not written after the fallback")
	}

	f.store.failAll = true
	resp, _ = f.h.HandleSQS(context.Background(), events.SQSEvent{Records: []events.SQSMessage{record(t, "a", vat), record(t, "b", vrt)}})
	if got := strings.Join(failedIDs(resp), ","); got != "a,b" {
		t.Fatalf("graph down: failures = %s, want both", got)
	}
}

func TestDetailCheckOrPublishFailureFailsTheRecordForRetry(t *testing.T) {
	f := newFixture(t)
	vat, vrt := mk("tax", "IE", "VAT", "VAT"), mk("vehicles", "IE", "VRT", "VRT")
	f.store.failDetailOf = vrt.ID
	resp, _ := f.h.HandleSQS(context.Background(), events.SQSEvent{Records: []events.SQSMessage{record(t, "ok", vat), record(t, "check", vrt)}})
	if got := strings.Join(failedIDs(resp), ","); got != "check" {
		t.Fatalf("failures = %s", got)
	}

	// A failed publish fails the record and clears the mark, so the
	// redelivered record queues the job: nothing is lost to the outage.
	f2 := newFixture(t)
	f2.enrich.err = errors.New("sqs throttled")
	resp, _ = f2.h.HandleSQS(context.Background(), events.SQSEvent{Records: []events.SQSMessage{record(t, "x", vat)}})
	if got := strings.Join(failedIDs(resp), ","); got != "x" || !strings.Contains(f2.logs.String(), "enrichment_enqueue_failed") {
		t.Fatalf("resp %+v logs %s", resp, f2.logs.String())
	}
	f2.enrich.err = nil
	resp, _ = f2.h.HandleSQS(context.Background(), events.SQSEvent{Records: []events.SQSMessage{record(t, "x", vat)}})
	if len(resp.BatchItemFailures) != 0 || len(f2.enrich.conceptIDs(t)) != 1 {
		t.Fatalf("redelivery: resp %+v, jobs %v", resp, f2.enrich.conceptIDs(t))
	}
}

func TestHandleEnvelopeThroughInProcessQueue(t *testing.T) {
	f := newFixture(t)
	q := inprocess.New("concepts", f.h.HandleEnvelope, nil)
	vat := mk("tax", "IE", "VAT", "VAT")
	env, _ := queue.NewEnvelope(queue.TypeConceptsCaptured, queue.ConceptsCaptured{Concepts: []concept.Concept{vat}})
	if err := q.Publish(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	q.Wait()
	if nodes, _ := f.store.GetNodesByIDs(context.Background(), []string{vat.ID}); len(nodes) != 1 {
		t.Fatal("in-process delivery did not write the concept")
	}
	bad := queue.Envelope{Type: queue.TypeConceptsCaptured, Version: 1, ID: "z", Payload: []byte(`{"concepts":[]}`)}
	if err := f.h.HandleEnvelope(context.Background(), bad); !IsInvalid(err) {
		t.Fatalf("HandleEnvelope(invalid) = %v", err)
	}
}
