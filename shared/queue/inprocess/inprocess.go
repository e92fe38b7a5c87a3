// Package inprocess is a queue.Publisher that hands each envelope to a
// handler in the same process, asynchronously, as SQS would hand it to the
// consumer Lambda. Local runs (`make dev` without queue URLs) use it so the
// whole pipeline runs in one process through the same handlers.
package inprocess

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"regintel/shared/queue"
)

// Handler consumes one envelope (for example resolver.Handler.HandleEnvelope).
type Handler func(ctx context.Context, env queue.Envelope) error

// ErrClosed is returned by Publish after Close.
var ErrClosed = errors.New("in-process queue is closed")

// Publisher runs the handler in a goroutine per envelope. The handler's
// context is detached from the publisher's request (a finished chat turn
// must not cancel the resolution it queued) but keeps its values.
type Publisher struct {
	name    string
	handler Handler
	log     *slog.Logger

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// New returns a publisher delivering to handler; name identifies the queue in
// logs. A nil logger means slog.Default().
func New(name string, handler Handler, log *slog.Logger) *Publisher {
	if log == nil {
		log = slog.Default()
	}
	return &Publisher{name: name, handler: handler, log: log}
}

// Publish starts one delivery per envelope and returns at once.
func (p *Publisher) Publish(ctx context.Context, msgs ...queue.Envelope) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	detached := context.WithoutCancel(ctx)
	for _, env := range msgs {
		p.wg.Add(1)
		go p.deliver(detached, env)
	}
	return nil
}

func (p *Publisher) deliver(ctx context.Context, env queue.Envelope) {
	defer p.wg.Done()
	defer func() {
		if r := recover(); r != nil {
			p.log.ErrorContext(ctx, "in-process queue handler panicked", "queue", p.name, "message_id", env.ID, "type", env.Type, "panic", r)
		}
	}()
	if err := p.handler(ctx, env); err != nil {
		// Locally there is no redrive: the failure is logged and dropped.
		p.log.ErrorContext(ctx, "in-process queue handler failed", "queue", p.name, "message_id", env.ID, "type", env.Type, "err", err)
	}
}

// Wait blocks until every delivery started so far has finished.
func (p *Publisher) Wait() { p.wg.Wait() }

// Close refuses further messages and waits for the ones in flight.
func (p *Publisher) Close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.wg.Wait()
}
