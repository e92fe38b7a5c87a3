package inprocess

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"regintel/shared/queue"
	"regintel/shared/queue/queuetest"
)

func TestConformance(t *testing.T) {
	queuetest.Run(t, newConformanceQueue)
}

func BenchmarkConformanceQueue(b *testing.B) { queuetest.Bench(b, newConformanceQueue) }

func newConformanceQueue(t testing.TB, handler queue.Handler, maxDeliveries int) queuetest.Queue {
	p := New("conformance", handler, slog.New(slog.NewTextHandler(io.Discard, nil)),
		WithMaxDeliveries(maxDeliveries), WithRetryDelay(time.Millisecond))
	t.Cleanup(p.Close)
	return queuetest.Queue{Publisher: p, Settle: func(testing.TB) { p.Wait() }}
}

func TestPublishDeliversEveryEnvelopeAndWaitWaits(t *testing.T) {
	var mu sync.Mutex
	got := map[string]bool{}
	release := make(chan struct{})
	p := New("concepts", func(ctx context.Context, env queue.Envelope) error {
		<-release
		mu.Lock()
		got[env.ID] = true
		mu.Unlock()
		return nil
	}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	a, _ := queue.NewEnvelope(queue.TypeConceptsCaptured, queue.ConceptsCaptured{})
	b, _ := queue.NewEnvelope(queue.TypeConceptsCaptured, queue.ConceptsCaptured{})
	if err := p.Publish(ctx, a, b); err != nil {
		t.Fatal(err)
	}
	cancel() // the request ending must not cancel the delivery
	close(release)
	p.Wait()
	if !got[a.ID] || !got[b.ID] {
		t.Fatalf("delivered %v", got)
	}
}

func TestHandlerContextSurvivesPublisherCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	start := make(chan struct{})
	p := New("q", func(ctx context.Context, env queue.Envelope) error {
		<-start
		errs <- ctx.Err()
		return nil
	}, nil)
	env, _ := queue.NewEnvelope(queue.TypeConceptsCaptured, queue.ConceptsCaptured{})
	_ = p.Publish(ctx, env)
	cancel()
	close(start)
	p.Wait()
	if err := <-errs; err != nil {
		t.Fatalf("handler context was cancelled: %v", err)
	}
}

func TestFailuresAndPanicsAreLogged(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewJSONHandler(&syncWriter{w: &logs, mu: &mu}, nil))
	n := 0
	p := New("q", func(ctx context.Context, env queue.Envelope) error {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			return errors.New("graph down")
		}
		panic("boom")
	}, log, WithMaxDeliveries(1))
	a, _ := queue.NewEnvelope(queue.TypeConceptsCaptured, queue.ConceptsCaptured{})
	b, _ := queue.NewEnvelope(queue.TypeConceptsCaptured, queue.ConceptsCaptured{})
	_ = p.Publish(context.Background(), a)
	p.Wait()
	_ = p.Publish(context.Background(), b)
	p.Close()
	out := logs.String()
	if !strings.Contains(out, `"err":"graph down"`) || !strings.Contains(out, "panicked") || !strings.Contains(out, a.ID) {
		t.Fatalf("logs: %s", out)
	}
	if err := p.Publish(context.Background(), a); !errors.Is(err, ErrClosed) {
		t.Fatalf("Publish after Close = %v", err)
	}
}

// A message that can never be processed is not delivered again; a
// transient failure is, after the retry delay.
func TestInvalidPayloadIsNotDeliveredAgain(t *testing.T) {
	var invalid, flaky atomic.Int32
	bad, _ := queue.NewEnvelope(queue.TypeConceptsCaptured, queue.ConceptsCaptured{})
	good, _ := queue.NewEnvelope(queue.TypeEnrichmentRequested, queue.EnrichmentRequested{ConceptID: "TAX:IE:VAT"})
	var firstAt, secondAt atomic.Int64
	p := New("q", func(ctx context.Context, env queue.Envelope) error {
		if env.ID == bad.ID {
			invalid.Add(1)
			return fmt.Errorf("%w: no concepts", queue.ErrInvalidPayload)
		}
		switch flaky.Add(1) {
		case 1:
			firstAt.Store(time.Now().UnixNano())
			return errors.New("graph down")
		default:
			secondAt.Store(time.Now().UnixNano())
			return nil
		}
	}, slog.New(slog.NewTextHandler(io.Discard, nil)), WithMaxDeliveries(5), WithRetryDelay(20*time.Millisecond))
	if err := p.Publish(context.Background(), bad, good); err != nil {
		t.Fatal(err)
	}
	p.Close()
	if n := invalid.Load(); n != 1 {
		t.Errorf("invalid message delivered %d times, want once", n)
	}
	if n := flaky.Load(); n != 2 {
		t.Errorf("transiently failing message delivered %d times, want twice", n)
	}
	if wait := time.Duration(secondAt.Load() - firstAt.Load()); wait < 20*time.Millisecond {
		t.Errorf("delivered again after %v, want at least the 20ms retry delay", wait)
	}
}

type syncWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}
