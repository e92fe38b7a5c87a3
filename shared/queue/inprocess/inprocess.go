// Package inprocess is a queue.Publisher that hands each envelope to a
// handler in the same process, asynchronously, as SQS would hand it to the
// consumer Lambda. Local runs (`make dev` without queue URLs) use it so the
// whole pipeline runs in one process through the same handlers, with the
// same redelivery of a failed message.
package inprocess

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"regintel/shared/queue"
)

// ErrClosed is returned by Publish after Close.
var ErrClosed = errors.New("in-process queue is closed")

// Delivery defaults: as many deliveries as the deployed queues allow before
// their dead-letter queue, a short wait doubling between them.
const (
	DefaultMaxDeliveries = 5
	DefaultRetryDelay    = 200 * time.Millisecond
)

// Publisher runs the handler in a goroutine per envelope. The handler's
// context is detached from the publisher's request (a finished chat turn
// must not cancel the resolution it queued) but keeps its values.
type Publisher struct {
	name          string
	handler       queue.Handler
	log           *slog.Logger
	maxDeliveries int
	retryDelay    time.Duration

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// Option changes a Publisher.
type Option func(*Publisher)

// WithMaxDeliveries sets how often a failing message is handed to the
// handler before it is given up (at least once).
func WithMaxDeliveries(n int) Option {
	return func(p *Publisher) { p.maxDeliveries = max(n, 1) }
}

// WithRetryDelay sets the wait before the second delivery; it doubles for
// each one after.
func WithRetryDelay(d time.Duration) Option {
	return func(p *Publisher) { p.retryDelay = max(d, 0) }
}

// New returns a publisher delivering to handler; name identifies the queue in
// logs. A nil logger means slog.Default().
func New(name string, handler queue.Handler, log *slog.Logger, opts ...Option) *Publisher {
	if log == nil {
		log = slog.Default()
	}
	p := &Publisher{name: name, handler: handler, log: log, maxDeliveries: DefaultMaxDeliveries, retryDelay: DefaultRetryDelay}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Publish starts one delivery per envelope and returns at once.
func (p *Publisher) Publish(ctx context.Context, msgs ...queue.Envelope) error {
	// A caller that has given up publishes nothing, as with SQS; a message
	// once accepted is handled even after the caller's context ends.
	if err := ctx.Err(); err != nil {
		return err
	}
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

// deliver hands env to the handler until it succeeds, up to maxDeliveries
// times. A message that can never be processed is not retried.
func (p *Publisher) deliver(ctx context.Context, env queue.Envelope) {
	defer p.wg.Done()
	log := p.log.With("queue", p.name, "message_id", env.ID, "type", env.Type)
	delay := p.retryDelay
	for attempt := 1; ; attempt++ {
		err := p.handle(ctx, env)
		switch {
		case err == nil:
			return
		case errors.Is(err, queue.ErrInvalidPayload):
			log.ErrorContext(ctx, "in-process queue dropped a message that can never be processed", "err", err)
			return
		case attempt >= p.maxDeliveries:
			// Locally there is no dead-letter queue: the message is given up.
			log.ErrorContext(ctx, "in-process queue gave up on a message", "deliveries", attempt, "err", err)
			return
		}
		log.WarnContext(ctx, "in-process queue handler failed; delivering again", "delivery", attempt, "err", err)
		time.Sleep(delay)
		delay *= 2
	}
}

// handle runs the handler once; a panic is a failed delivery, as it fails
// the Lambda invocation under SQS.
func (p *Publisher) handle(ctx context.Context, env queue.Envelope) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panicked: %v", r)
		}
	}()
	return p.handler(ctx, env)
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
