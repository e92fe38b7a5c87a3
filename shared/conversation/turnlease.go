package conversation

import (
	"context"
	"errors"
	"time"
)

// One active turn per conversation: a turn takes the conversation's lease
// as it loads it (StartTurn) and gives it back as it stores its turn
// (AppendTurn with Turn.LeaseID) or, when it stores none, with EndTurn. A
// lease expires on its own, so a turn that dies mid-stream holds the
// conversation only until then. The lease lives in the store, so it holds
// across every instance serving the API.

// ErrTurnInProgress is returned by StartTurn while another turn of the
// conversation holds its lease.
var ErrTurnInProgress = errors.New("a turn of this conversation is in progress")

// DefaultTurnLease is how long a turn may hold its conversation.
const DefaultTurnLease = 2 * time.Minute

// Turns is the part of the store a running turn needs beyond loading and
// saving: the lease and the tenant's token usage.
type Turns interface {
	// StartTurn is LoadTurnState for a turn about to run: in the same round
	// trip it takes the conversation's lease for leaseFor (TurnState.LeaseID)
	// and reads the tenant's token usage today (TurnState.TenantTokensToday).
	StartTurn(ctx context.Context, tenantID, conversationID string, historyTurns int, leaseFor time.Duration) (TurnState, error)
	// EndTurn gives back a lease StartTurn took, for a turn that stores no
	// turn. A lease that expired or was taken over is left alone.
	EndTurn(ctx context.Context, tenantID, conversationID, leaseID string) error
	// TenantTokensToday is the tokens the tenant's stored turns used on the
	// current UTC day (AppendTurn adds every turn's usage).
	TenantTokensToday(ctx context.Context, tenantID string) (int64, error)
}

// UsageDay is the UTC day usage at t counts towards.
func UsageDay(t time.Time) string { return t.UTC().Format(time.DateOnly) }
