package inprocess

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"regintel/shared/queue"
)

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
	}, log)
	a, _ := queue.NewEnvelope(queue.TypeConceptsCaptured, queue.ConceptsCaptured{})
	b, _ := queue.NewEnvelope(queue.TypeConceptsCaptured, queue.ConceptsCaptured{})
	_ = p.Publish(context.Background(), a)
	p.Wait()
	_ = p.Publish(context.Background(), b)
	p.Close()
	out := logs.String()
	if !strings.Contains(out, "graph down") || !strings.Contains(out, "panicked") || !strings.Contains(out, a.ID) {
		t.Fatalf("logs: %s", out)
	}
	if err := p.Publish(context.Background(), a); !errors.Is(err, ErrClosed) {
		t.Fatalf("Publish after Close = %v", err)
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
