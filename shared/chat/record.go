package chat

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"regintel/shared/conversation"
)

// RecordEvery is how often a recorded turn writes its new events to the
// store; the answer reaches its client at the same pace.
const RecordEvery = 100 * time.Millisecond

// stopPollEvery is how often a recorded turn with nothing new to write
// still asks the store whether a stop was asked.
const stopPollEvery = time.Second

// RecordedSink receives a recorded turn's events as they are recorded,
// each with its place in the stream, and sends them on Flush.
type RecordedSink interface {
	Recorded(ev conversation.StreamEvent) error
	Flush() error
	// Format names the sink's wire format, kept with the recording.
	Format() string
}

// Recordable reports whether StreamRecorded can record this turn: it is
// stored, its number is taken, and the store records streams.
func (t *Turn) Recordable() bool {
	return t.e.Streams() != nil && t.persist && t.number > 0
}

// StreamRecorded answers the turn as Stream does, recording its events to
// the store as they go, so any instance can replay the stream and follow
// it. The client may go away: the turn goes on and is stored. It stops
// when a stop is asked through the store, and is stored interrupted with
// its partial answer. Only for a Recordable turn.
func (t *Turn) StreamRecorded(ctx context.Context, client RecordedSink) Result {
	run, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	rec := &recorder{t: t, streams: t.e.store.(conversation.Streams), client: client, stop: stop,
		log: t.log, ctx: conversation.WithOwner(run, t.req.UserID)}
	ticking := rec.tick(run)
	res := t.Stream(run, rec)
	ticking()
	rec.write(true)
	return res
}

// recorder is the Sink of a recorded turn. Events are numbered as they
// come; the answer's deltas become one message event per write. Every
// RecordEvery the new events go to the client, then to the store.
type recorder struct {
	t       *Turn
	streams conversation.Streams
	client  RecordedSink
	stop    context.CancelFunc
	log     *slog.Logger
	ctx     context.Context

	mu      sync.Mutex
	pending []recordedEvent
	next    int

	out        sync.Mutex // held while a batch is sent and written
	unwritten  []conversation.StreamEvent
	lastWrite  time.Time
	clientGone bool
}

// recordedEvent is an event as recorded and, when it differs, as its
// client sees it: the live answer is the model's own text, never altered;
// the recorded one is as it may be stored.
type recordedEvent struct {
	conversation.StreamEvent
	live json.RawMessage
}

// Event implements Sink; it never fails, so the turn never stops for its client.
func (r *recorder) Event(name string, data any) error {
	r.mu.Lock()
	if name == EventMessage {
		// The turn keeps the answer (t.answer); it is settled on the tick.
		r.mu.Unlock()
		return nil
	}
	// Text before a warning may go on; any other event follows the answer.
	r.settleAnswer(name != EventWarning)
	raw, err := json.Marshal(data)
	if err != nil {
		r.mu.Unlock()
		r.log.Error("encode stream event", "event", name, "err", err)
		return nil
	}
	r.pending = append(r.pending, recordedEvent{StreamEvent: conversation.StreamEvent{Seq: r.next, Name: name, Data: raw}})
	r.next++
	r.mu.Unlock()
	if name == EventStart || name == EventDone {
		// The start names the turn and the end ends it: neither waits.
		r.write(false)
	}
	return nil
}

// Flush implements HoldingSink: the recorder keeps its own pace.
func (r *recorder) Flush() error { return nil }

// settleAnswer turns the answer decided since the last message event into
// one. Under store redaction what could still grow into a PII item waits
// for the words after it, however long the model pauses (see pii.Stream),
// so an item is recorded redacted whole. The caller holds r.mu.
func (r *recorder) settleAnswer(whole bool) {
	span, stored := r.t.answer.next(whole)
	if span == "" {
		return
	}
	live, _ := json.Marshal(TextDelta{Text: span})
	recorded, _ := json.Marshal(TextDelta{Text: stored})
	r.pending = append(r.pending, recordedEvent{StreamEvent: conversation.StreamEvent{Seq: r.next, Name: EventMessage, Data: recorded}, live: live})
	r.next++
}

// tick writes every RecordEvery until the returned stop is called.
func (r *recorder) tick(ctx context.Context) (stop func()) {
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		ticker := time.NewTicker(RecordEvery)
		defer ticker.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-ticker.C:
				r.write(false)
			}
		}
	}()
	return func() { close(done); <-exited }
}

// write sends the new events to the client, then writes them and the
// answer so far to the store; a stop read back stops the turn. Events the
// store refused are written again with the next batch.
func (r *recorder) write(final bool) {
	r.out.Lock()
	defer r.out.Unlock()
	r.mu.Lock()
	r.settleAnswer(final)
	batch, answer := r.pending, r.t.answer.soFar()
	r.pending = nil
	r.mu.Unlock()
	r.send(batch)
	for _, ev := range batch {
		r.unwritten = append(r.unwritten, ev.StreamEvent)
	}
	if len(r.unwritten) == 0 && time.Since(r.lastWrite) < stopPollEvery {
		return
	}
	sctx, cancel := r.t.e.storeCtx(r.ctx)
	defer cancel()
	b := conversation.StreamBatch{TurnNumber: r.t.number, Events: r.unwritten, Format: r.client.Format(), Final: hasDone(r.unwritten)}
	if hasMessage(r.unwritten) && !r.t.finished.Load() {
		b.AnswerSoFar = &answer
	}
	stop, err := r.streams.AppendStream(sctx, r.t.req.TenantID, r.t.state.Conversation.ID, b)
	r.lastWrite = time.Now()
	if err != nil {
		r.log.Error("record turn stream failed; retrying with the next batch", "err", err, "events", len(r.unwritten))
		return
	}
	r.unwritten = nil
	if stop {
		r.stop()
	}
}

// send passes the events to the client until it goes away.
func (r *recorder) send(batch []recordedEvent) {
	if r.clientGone || len(batch) == 0 {
		return
	}
	for _, ev := range batch {
		out := ev.StreamEvent
		if ev.live != nil {
			out.Data = ev.live
		}
		if err := r.client.Recorded(out); err != nil {
			r.goneAway(err)
			return
		}
	}
	if err := r.client.Flush(); err != nil {
		r.goneAway(err)
	}
}

func (r *recorder) goneAway(err error) {
	r.clientGone = true
	r.log.Info("the client went away mid-answer; the turn goes on", "err", err)
}

func hasDone(evs []conversation.StreamEvent) bool {
	return len(evs) > 0 && evs[len(evs)-1].Name == EventDone
}

func hasMessage(evs []conversation.StreamEvent) bool {
	for _, ev := range evs {
		if ev.Name == EventMessage {
			return true
		}
	}
	return false
}

// Number is the prepared turn's stored number (0: not stored yet).
func (t *Turn) Number() int { return t.number }

// Streams is the store's recording of turn streams, nil when it keeps none.
func (e *Engine) Streams() conversation.Streams {
	s, _ := e.store.(conversation.Streams)
	return s
}
