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
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.recordFor(ctx, tenantID, conversationID)
	if err != nil {
		return false, err
	}
	if len(b.Events) > 0 && b.Events[0].Seq == 0 {
		r.stream = &recordedStream{turn: b.TurnNumber, format: b.Format}
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
	return r.stream.stop, nil
}

// ReadStream returns the recorded events after afterSeq.
func (s *Store) ReadStream(ctx context.Context, tenantID, conversationID string, afterSeq int) (conversation.TurnStream, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.recordFor(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.TurnStream{}, err
	}
	out := conversation.TurnStream{Events: []conversation.StreamEvent{}}
	if r.stream == nil {
		return out, nil
	}
	out.TurnNumber, out.Format = r.stream.turn, r.stream.format
	out.Running = r.running()
	for _, ev := range r.stream.events[min(max(afterSeq+1, 0), len(r.stream.events)):] {
		ev.Data = slices.Clone(ev.Data)
		out.Events = append(out.Events, ev)
	}
	return out, nil
}

// StopStream sets the stop flag of a running recorded turn.
func (s *Store) StopStream(ctx context.Context, tenantID, conversationID string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.recordFor(ctx, tenantID, conversationID)
	if err != nil {
		return false, err
	}
	if r.stream == nil || !r.running() {
		return false, nil
	}
	r.stream.stop = true
	return true, nil
}

// running: the recorded turn still streams and holds the conversation.
// The caller holds s.mu.
func (r *record) running() bool {
	i := r.turnIndex(r.stream.turn)
	if i < 0 || r.turns[i].Status != conversation.TurnStreaming {
		return false
	}
	return r.lease != nil && time.Now().Before(r.lease.until)
}

// turnIndex is the index of turn number in r.turns, -1 if none.
func (r *record) turnIndex(number int) int {
	return slices.IndexFunc(r.turns, func(t conversation.Turn) bool { return t.Number == number })
}
