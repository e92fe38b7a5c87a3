package conversation

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// A running turn's stream is recorded as it is written: its events go to
// the store in batches, with the answer so far, so any instance can replay
// the stream from its first event and follow it to its end. The client of
// a turn may go away; the turn goes on. A stop is asked through the store,
// and the running turn reads it back with each batch it writes.

// StreamEvent is one event of a turn's stream: its place (from 0), its
// name and its JSON data as sent.
type StreamEvent struct {
	Seq  int             `json:"seq"`
	Name string          `json:"name"`
	Data json.RawMessage `json:"data"`
}

// StreamBatch is what a running turn writes at once.
type StreamBatch struct {
	// TurnNumber is the turn being recorded. A batch whose first event has
	// Seq 0 starts its recording: the conversation's earlier recorded
	// events are dropped, and a stop asked of another turn is forgotten
	// (one asked of this turn before its first write is kept).
	TurnNumber int
	// Final marks the turn's last batch: a stop asked is spent, so a retry
	// of the turn starts with none.
	Final bool
	// Events follow the ones written before, with consecutive Seqs.
	Events []StreamEvent
	// AnswerSoFar, when set, is stored as the turn's answer while it
	// streams (as it may be stored).
	AnswerSoFar *string
	// Format is the wire format the turn's client asked for, kept with the
	// recording's first batch, so a reconnect that names none gets it.
	Format string
}

// TurnStream is the recorded stream of a conversation's latest turn.
type TurnStream struct {
	// TurnNumber is the running turn, else the recorded one (0: none).
	TurnNumber int
	// Running: the conversation's last turn is streaming and holds the
	// conversation. Its events may not be recorded yet: Events is then
	// empty, never an earlier turn's.
	Running bool
	// Format is the recording's StreamBatch.Format.
	Format string
	// Events are the ones after the Seq asked for, in order.
	Events []StreamEvent
}

// Streams records and replays running turns' streams. Every method is
// scoped as Store's are: a conversation of another tenant or user is
// ErrNotFound.
type Streams interface {
	// AppendStream stores b and reports whether a stop of the turn was
	// asked, in one round trip.
	AppendStream(ctx context.Context, tenantID, conversationID string, b StreamBatch) (stop bool, err error)
	// ReadStream returns the conversation's latest recorded stream from
	// after afterSeq (-1: from the first event).
	ReadStream(ctx context.Context, tenantID, conversationID string, afterSeq int) (TurnStream, error)
	// StopStream asks the conversation's running turn to stop, and says
	// whether one was running; a turn that has written nothing yet reads
	// the stop with its first write.
	StopStream(ctx context.Context, tenantID, conversationID string) (bool, error)
}

// ErrTooManyFollowers is a follower refused because the conversation's
// stream already has as many as it may.
var ErrTooManyFollowers = errors.New("the conversation's stream has as many followers as it may")

// StreamFollowers bounds how many clients follow one conversation's stream
// at once, across instances. A follower holds a place for a lease and
// renews it while it follows; the place of one that died lapses with its
// lease. Scoped as Streams is.
type StreamFollowers interface {
	// FollowStream renews place when the follower holds it, else takes it
	// while fewer than max unlapsed places are held (ErrTooManyFollowers
	// when not), for lease from now.
	FollowStream(ctx context.Context, tenantID, conversationID, place string, max int, lease time.Duration) error
	// UnfollowStream gives the place back.
	UnfollowStream(ctx context.Context, tenantID, conversationID, place string) error
}
