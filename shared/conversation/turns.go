package conversation

import (
	"context"
	"errors"
	"time"
)

// A chat turn runs in three steps against the store. StartTurn loads what
// the turn needs, takes the conversation's lease (one active turn per
// conversation) and, when asked, reserves the turn: its question is stored
// with status TurnStreaming under the next number, so the client learns it
// before the answer. FinishTurn stores the outcome in place, adds the
// turn's tokens to its tenant's day and gives the lease back. EndTurn gives
// the lease back for a turn that stores nothing. A lease expires on its
// own, so a turn that dies mid-stream holds the conversation only until
// then; it lives in the store, so it holds across every instance.

// ErrTurnInProgress is returned by StartTurn while another turn of the
// conversation holds its lease.
var ErrTurnInProgress = errors.New("a turn of this conversation is in progress")

// ErrContextNotSaved wraps the reason FinishTurn stored the turn but not
// the context part of its save (the active nodes, the used items).
var ErrContextNotSaved = errors.New("the turn was stored but its conversation context was not updated")

// DefaultTurnLease is how long a turn may hold its conversation.
const DefaultTurnLease = 2 * time.Minute

// TurnStart says what StartTurn does besides loading the turn's state.
type TurnStart struct {
	// HistoryTurns is how many of the last turns are loaded.
	HistoryTurns int
	// LeaseFor is how long the turn may hold the conversation (zero or
	// less: DefaultTurnLease).
	LeaseFor time.Duration
	// DailyTokenLimit, when above zero, has the tenant's usage today read
	// (TurnState.TenantTokensToday); a tenant at the limit gets no
	// reservation.
	DailyTokenLimit int64
	// Reserve, when set, reserves the turn in the same round trip, as
	// ReserveTurn does with it (its UserText and Profile), or with Retry
	// as RetryTurn does. Nothing is reserved while another turn holds the
	// lease, at the token limit, or while a context request is pending:
	// TurnState.Reserved is then nil and the caller reserves once it has
	// settled what the turn is.
	Reserve *Turn
	Retry   bool
	// Regenerate, with Retry, restarts the last turn whatever it ended
	// with: the client asked for another answer in its place.
	Regenerate bool
}

// TurnFinish is what FinishTurn stores with the turn's outcome.
type TurnFinish struct {
	// ActiveNodes are merged into the context's activeNodeIds, as
	// MergeActiveNodes does (capped at MaxNodes).
	ActiveNodes []string
	MaxNodes    int
	// UsedItems are supplied items the turn's prompt used: marked used now.
	UsedItems []string
}

// Turns is the part of the store a running turn needs beyond loading and
// appending: start, reserve, finish, the lease and the tenant's usage.
type Turns interface {
	// StartTurn is LoadTurnState for a turn about to run, in one round
	// trip: it also takes the conversation's lease for start.LeaseFor
	// (TurnState.LeaseID; ErrTurnInProgress while another turn holds it),
	// reads the tenant's usage today when a limit is given, and reserves
	// the turn when asked (TurnState.Reserved).
	StartTurn(ctx context.Context, tenantID, conversationID string, start TurnStart) (TurnState, error)
	// StartConversation creates c and, in the same round trip, takes its
	// lease and reserves its first turn as StartTurn does (with
	// start.Reserve). At start.DailyTokenLimit nothing is created and the
	// state's Conversation has no id.
	StartConversation(ctx context.Context, c Conversation, start TurnStart) (TurnState, error)
	// ReserveTurn stores the question of a new turn (t.UserText, status
	// TurnStreaming) under the next turn number, as AppendTurn numbers,
	// and returns that number. A non-nil t.Profile replaces the
	// conversation's profile in the same write.
	ReserveTurn(ctx context.Context, tenantID, conversationID string, t Turn) (int, error)
	// RetryTurn restarts the conversation's last turn when its status is
	// retryable: the turn goes back to TurnStreaming with an empty answer
	// and is returned (number and question). Otherwise ErrNotRetryable.
	RetryTurn(ctx context.Context, tenantID, conversationID string) (Turn, error)
	// FinishTurn stores the outcome of turn t.Number, reserved by
	// StartTurn, ReserveTurn or RetryTurn: answer, status, usage, metadata
	// (the question stays). In the same round trip t.Usage is added to
	// the tenant's day, t.LeaseID is given back and f is applied. A
	// failure of f alone does not undo the turn: it is ErrContextNotSaved.
	// ErrNotFound when the turn is gone.
	FinishTurn(ctx context.Context, tenantID, conversationID string, t Turn, f TurnFinish) error
	// EndTurn gives back a lease StartTurn took, for a turn that stores no
	// turn. A lease that expired or was taken over is left alone.
	EndTurn(ctx context.Context, tenantID, conversationID, leaseID string) error
	// TenantTokensToday is the tokens the tenant's stored turns used on the
	// current UTC day (AppendTurn and FinishTurn add every turn's usage).
	TenantTokensToday(ctx context.Context, tenantID string) (int64, error)
}

// UsageDay is the UTC day usage at t counts towards.
func UsageDay(t time.Time) string { return t.UTC().Format(time.DateOnly) }
