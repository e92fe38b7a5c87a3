package memory

import (
	"context"
	"fmt"
	"slices"
	"time"

	"regintel/shared/conversation"
)

var _ conversation.Streams = (*Store)(nil)

// recordedStream is a conversation's latest recorded turn stream.
type recordedStream struct {
	turn   int
	format string
	events []conversation.StreamEvent
	stop   bool
}

// AppendStream stores the batch and returns the stop flag.
func (s *Store) AppendStream(ctx context.Context, tenantID, conversationID string, b conversation.StreamBatch) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.recordFor(ctx, tenantID, conversationID)
	if err != nil {
		return false, err
	}
	if len(b.Events) > 0 && b.Events[0].Seq == 0 {
		asked := r.stream != nil && r.stream.turn == b.TurnNumber && r.stream.stop
		r.stream = &recordedStream{turn: b.TurnNumber, format: b.Format, stop: asked}
	}
	if r.stream == nil || r.stream.turn != b.TurnNumber {
		return false, fmt.Errorf("append stream: turn %d is not being recorded", b.TurnNumber)
	}
	for _, ev := range b.Events {
		if ev.Seq != len(r.stream.events) {
			return false, fmt.Errorf("append stream: event %d follows %d events", ev.Seq, len(r.stream.events))
		}
		ev.Data = slices.Clone(ev.Data)
		r.stream.events = append(r.stream.events, ev)
	}
	if b.AnswerSoFar != nil {
		if i := r.turnIndex(b.TurnNumber); i >= 0 && r.turns[i].Status == conversation.TurnStreaming {
			r.turns[i].AssistantText = *b.AnswerSoFar
		}
	}
	stop := r.stream.stop
	if b.Final {
		r.stream.stop = false
	}
	return stop, nil
}

// ReadStream returns the recorded events after afterSeq.
func (s *Store) ReadStream(ctx context.Context, tenantID, conversationID string, afterSeq int) (conversation.TurnStream, error) {
	if err := ctx.Err(); err != nil {
		return conversation.TurnStream{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.recordFor(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.TurnStream{}, err
	}
	out := conversation.TurnStream{Events: []conversation.StreamEvent{}}
	if running := r.lastTurnRunning(); running > 0 {
		out.TurnNumber, out.Running = running, true
	}
	if r.stream == nil || (out.Running && r.stream.turn != out.TurnNumber) {
		return out, nil
	}
	out.TurnNumber, out.Format = r.stream.turn, r.stream.format
	for _, ev := range r.stream.events[min(max(afterSeq+1, 0), len(r.stream.events)):] {
		ev.Data = slices.Clone(ev.Data)
		out.Events = append(out.Events, ev)
	}
	return out, nil
}

// StopStream sets the stop flag of a running recorded turn.
func (s *Store) StopStream(ctx context.Context, tenantID, conversationID string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.recordFor(ctx, tenantID, conversationID)
	if err != nil {
		return false, err
	}
	running := r.lastTurnRunning()
	switch {
	case running == 0:
		return false, nil
	case r.stream == nil || r.stream.turn != running:
		// Nothing recorded yet: the first write reads the stop.
		r.stream = &recordedStream{turn: running, stop: true}
	default:
		r.stream.stop = true
	}
	return true, nil
}

// lastTurnRunning is the number of the last turn if it streams and holds
// the conversation, else 0. The caller holds s.mu.
func (r *record) lastTurnRunning() int {
	if len(r.turns) == 0 || r.turns[len(r.turns)-1].Status != conversation.TurnStreaming {
		return 0
	}
	if r.lease == nil || !time.Now().Before(r.lease.until) {
		return 0
	}
	return r.turns[len(r.turns)-1].Number
}

// turnIndex is the index of turn number in r.turns, -1 if none.
func (r *record) turnIndex(number int) int {
	return slices.IndexFunc(r.turns, func(t conversation.Turn) bool { return t.Number == number })
}
