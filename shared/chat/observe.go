package chat

import (
	"time"

	"regintel/shared/llm"
)

// TurnStats is what a finished turn reports to the engine's observer (the
// metrics). It holds counts and times only, never text.
type TurnStats struct {
	RequestID string
	Status    string // the done event's status
	// TimeToFirstByte runs from the turn's start to its first event;
	// TimeToFirstText to its first answer text (0: no text was sent).
	TimeToFirstByte time.Duration
	TimeToFirstText time.Duration
	Duration        time.Duration
	ModelCalls      int
	Usage           llm.Usage
	// Captured by the model; resolved to a node; rejected by the write guard.
	ConceptsCaptured int
	ConceptsResolved int
	ConceptsRejected int
	// PublishFailures counts captured-concept messages that could not be queued.
	PublishFailures int
}

// TurnObserver receives each turn's stats once, when its done event is sent.
type TurnObserver func(TurnStats)

// turnCounts are the counts a turn gathers on its way.
type turnCounts struct {
	captured, rejected, publishFailures int
}

// observedSink passes events on and notes, for the observer, when the first
// event and the first text went out, the metadata, and the done status.
type observedSink struct {
	Sink
	t         *Turn
	stats     TurnStats
	firstSent bool
}

// observed wraps sink when the engine has an observer.
func (t *Turn) observed(sink Sink) Sink {
	if t.e.observe == nil {
		return sink
	}
	return &observedSink{Sink: sink, t: t, stats: TurnStats{RequestID: t.req.RequestID}}
}

// Flush passes a flush on to a sink that holds deltas.
func (s *observedSink) Flush() error { return flush(s.Sink) }

func (s *observedSink) Event(name string, data any) error {
	err := s.Sink.Event(name, data)
	since := time.Since(s.t.started)
	if !s.firstSent {
		s.firstSent = true
		s.stats.TimeToFirstByte = since
	}
	switch name {
	case EventMessage:
		if s.stats.TimeToFirstText == 0 {
			s.stats.TimeToFirstText = since
		}
	case EventMetadata:
		if m, ok := data.(Metadata); ok {
			s.stats.ModelCalls, s.stats.Usage, s.stats.ConceptsResolved = m.ModelCalls, m.Usage.Usage, len(m.Concepts)
		}
	case EventDone:
		if d, ok := data.(map[string]string); ok {
			s.stats.Status = d["status"]
		}
		s.stats.Duration = since
		c := s.t.counts
		s.stats.ConceptsCaptured, s.stats.ConceptsRejected, s.stats.PublishFailures = c.captured, c.rejected, c.publishFailures
		s.t.e.observe(s.stats)
	}
	return err
}
