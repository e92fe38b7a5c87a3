// Package queuetest is the behavioural contract of a queue: what a
// queue.Publisher sends reaches the consumer's handler intact, once each,
// and a message the handler fails is delivered again, alone, up to the
// queue's limit. Every implementation runs it, so local runs behave as the
// deployed queues do.
package queuetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"regintel/shared/queue"
)

// Queue is one fresh queue under test.
type Queue struct {
	Publisher queue.Publisher
	// Settle returns once everything published so far has been handled or
	// given up after its last delivery.
	Settle func(t testing.TB)
}

// NewQueue returns a fresh queue whose consumer hands each message to
// handler, at most maxDeliveries times.
type NewQueue func(t testing.TB, handler queue.Handler, maxDeliveries int) Queue

// Run runs the contract against the queues newQueue returns.
func Run(t *testing.T, newQueue NewQueue) {
	tests := []struct {
		name string
		run  func(t *testing.T, newQueue NewQueue)
	}{
		{"EnvelopeArrivesIntact", testEnvelopeArrivesIntact},
		{"ManyInOneCallEachHandledOnce", testManyHandledOnce},
		{"NothingToPublish", testNothingToPublish},
		{"FailedMessageIsDeliveredAgainAlone", testFailedMessageRedelivered},
		{"GivenUpAfterMaxDeliveries", testGivenUpAfterMaxDeliveries},
		{"CancelledContextPublishesNothing", testCancelledContextPublishesNothing},
		{"ExpiredDeadlinePublishesNothing", testExpiredDeadlinePublishesNothing},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newQueue)
		})
	}
}

// deliveries records what the handler saw, per envelope id.
type deliveries struct {
	mu   sync.Mutex
	seen map[string][]queue.Envelope
	// fail decides, per envelope and delivery number (from 1), whether the
	// handler fails it.
	fail func(env queue.Envelope, delivery int) bool
}

func newDeliveries(fail func(queue.Envelope, int) bool) *deliveries {
	if fail == nil {
		fail = func(queue.Envelope, int) bool { return false }
	}
	return &deliveries{seen: map[string][]queue.Envelope{}, fail: fail}
}

func (d *deliveries) handle(_ context.Context, env queue.Envelope) error {
	d.mu.Lock()
	d.seen[env.ID] = append(d.seen[env.ID], env)
	n := len(d.seen[env.ID])
	d.mu.Unlock()
	if d.fail(env, n) {
		return fmt.Errorf("handler failed delivery %d of %s", n, env.ID)
	}
	return nil
}

func (d *deliveries) count(id string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.seen[id])
}

func (d *deliveries) total() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, list := range d.seen {
		n += len(list)
	}
	return n
}

// envelopes returns n envelopes, alternating the two message types.
func envelopes(t testing.TB, n int) []queue.Envelope {
	t.Helper()
	out := make([]queue.Envelope, 0, n)
	for i := range n {
		var env queue.Envelope
		var err error
		if i%2 == 0 {
			env, err = queue.NewEnvelope(queue.TypeEnrichmentRequested, queue.EnrichmentRequested{
				ConceptID: fmt.Sprintf("TAX:IE:K%d", i), Domain: "tax", Kind: fmt.Sprintf("K%d", i), Jurisdiction: "IE",
				SourceURLs: []string{"https://www.revenue.ie/en/vat"},
			})
		} else {
			env, err = queue.NewEnvelope(queue.TypeConceptsCaptured, map[string]any{"concepts": []map[string]string{{"id": fmt.Sprintf("TAX:IE:C%d", i)}}})
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, env)
	}
	return out
}

func mustPublish(t testing.TB, q Queue, msgs ...queue.Envelope) {
	t.Helper()
	if err := q.Publisher.Publish(context.Background(), msgs...); err != nil {
		t.Fatalf("Publish of %d: %v", len(msgs), err)
	}
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

func testEnvelopeArrivesIntact(t *testing.T, newQueue NewQueue) {
	d := newDeliveries(nil)
	q := newQueue(t, d.handle, 3)
	sent := envelopes(t, 1)[0]
	mustPublish(t, q, sent)
	q.Settle(t)

	d.mu.Lock()
	got := d.seen[sent.ID]
	d.mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("envelope delivered %d times, want once", len(got))
	}
	env := got[0]
	if env.Type != sent.Type || env.Version != sent.Version || env.ID != sent.ID || !env.Time.Equal(sent.Time) || !sameJSON(env.Payload, sent.Payload) {
		t.Fatalf("delivered %+v (payload %s), sent %+v (payload %s)", env, env.Payload, sent, sent.Payload)
	}
	job, err := queue.DecodeEnrichmentRequested(env)
	if err != nil || job.ConceptID != "TAX:IE:K0" || len(job.SourceURLs) != 1 {
		t.Fatalf("delivered payload decodes to %+v, %v", job, err)
	}
}

func testManyHandledOnce(t *testing.T, newQueue NewQueue) {
	d := newDeliveries(nil)
	q := newQueue(t, d.handle, 3)
	// More than one SQS batch of ten.
	sent := envelopes(t, 23)
	mustPublish(t, q, sent...)
	q.Settle(t)
	for _, env := range sent {
		if n := d.count(env.ID); n != 1 {
			t.Errorf("envelope %s (%s) handled %d times, want once", env.ID, env.Type, n)
		}
	}
	if n := d.total(); n != len(sent) {
		t.Errorf("%d deliveries for %d envelopes", n, len(sent))
	}
}

func testNothingToPublish(t *testing.T, newQueue NewQueue) {
	d := newDeliveries(nil)
	q := newQueue(t, d.handle, 3)
	mustPublish(t, q)
	q.Settle(t)
	if n := d.total(); n != 0 {
		t.Fatalf("publishing nothing delivered %d messages", n)
	}
}

// A failure of one message in a batch is that message's alone: it comes
// back, the others are not handled again.
func testFailedMessageRedelivered(t *testing.T, newQueue NewQueue) {
	sent := envelopes(t, 3)
	flaky := sent[1].ID
	d := newDeliveries(func(env queue.Envelope, delivery int) bool { return env.ID == flaky && delivery == 1 })
	q := newQueue(t, d.handle, 3)
	mustPublish(t, q, sent...)
	q.Settle(t)
	for _, env := range sent {
		want := 1
		if env.ID == flaky {
			want = 2
		}
		if n := d.count(env.ID); n != want {
			t.Errorf("envelope %s handled %d times, want %d", env.ID, n, want)
		}
	}
}

func testGivenUpAfterMaxDeliveries(t *testing.T, newQueue NewQueue) {
	const maxDeliveries = 3
	sent := envelopes(t, 2)
	broken := sent[0].ID
	d := newDeliveries(func(env queue.Envelope, _ int) bool { return env.ID == broken })
	q := newQueue(t, d.handle, maxDeliveries)
	mustPublish(t, q, sent...)
	q.Settle(t)
	if n := d.count(broken); n != maxDeliveries {
		t.Errorf("always-failing message handled %d times, want %d", n, maxDeliveries)
	}
	if n := d.count(sent[1].ID); n != 1 {
		t.Errorf("healthy message handled %d times, want once", n)
	}
	// Settling again finds nothing left to deliver.
	q.Settle(t)
	if n := d.count(broken); n != maxDeliveries {
		t.Errorf("given-up message came back: %d deliveries", n)
	}
}

// A caller that has given up (its request cancelled, its deadline passed)
// gets the context's error back, and no message leaves: a turn that was
// abandoned must not half-publish.
func testCancelledContextPublishesNothing(t *testing.T, newQueue NewQueue) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	publishUnder(t, newQueue, ctx, context.Canceled)
}

func testExpiredDeadlinePublishesNothing(t *testing.T, newQueue NewQueue) {
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	publishUnder(t, newQueue, ctx, context.DeadlineExceeded)
}

func publishUnder(t *testing.T, newQueue NewQueue, ctx context.Context, want error) {
	d := newDeliveries(nil)
	q := newQueue(t, d.handle, 1)
	err := q.Publisher.Publish(ctx, envelopes(t, 3)...)
	if !errors.Is(err, want) {
		t.Fatalf("Publish = %v, want an error that is %v", err, want)
	}
	q.Settle(t)
	if n := d.total(); n != 0 {
		t.Fatalf("%d deliveries after a publish under a dead context, want 0", n)
	}
}

// Bench measures publishing and handling batches of ten envelopes, the size
// of one SQS batch, through the queue newQueue returns.
func Bench(b *testing.B, newQueue NewQueue) {
	d := newDeliveries(nil)
	q := newQueue(b, d.handle, 1)
	batch := envelopes(b, 10)
	b.ReportAllocs()
	for b.Loop() {
		if err := q.Publisher.Publish(context.Background(), batch...); err != nil {
			b.Fatal(err)
		}
	}
	q.Settle(b)
	b.ReportMetric(float64(d.total())/float64(b.N), "deliveries/op")
}
