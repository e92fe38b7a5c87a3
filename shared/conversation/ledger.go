package conversation

import (
	"context"
	"errors"
	"time"
)

// The daily token cap is kept by a ledger of charges, one counter per
// tenant and UTC day. Before the model is called a turn charges its
// worst case, in one atomic step that succeeds only while the counter is
// under the limit; after the answer it settles the charge to what the turn
// used. Concurrent turns therefore see each other's charges, and a day's
// counter ends at most one turn's charge above the limit.
//
// A charge is a reservation held for its turn's lease: a turn that dies
// before it settles (its process crashed) would leave its worst case
// charged all day. Once the lease lapses, the tenant's next charge settles
// the reservation to its estimate (TokenCharge.Lapse), and the turn's own
// settlement, should it still come, moves the day from that estimate.

// ErrOverLimit is returned by ChargeTokens when the tenant's charged
// tokens today already reached the token limit: nothing was charged.
var ErrOverLimit = errors.New("the tenant's daily token limit is reached")

// ErrOverCostLimit is returned by ChargeTokens when the tenant's charged
// cost today already reached the cost limit: nothing was charged.
var ErrOverCostLimit = errors.New("the tenant's daily cost limit is reached")

// TokenCharge is a charge taken by ChargeTokens, to settle once.
type TokenCharge struct {
	// Day is the UTC day the charge counts towards (UsageDay), so a turn
	// that runs past midnight settles the day it charged.
	Day     string
	Tokens  int64
	CostUSD float64
	// ID names the reservation ChargeTokens took ("": none, the charge
	// never lapses).
	ID string
	// LeaseFor is how long the reservation holds unsettled, the turn's
	// lease (zero: DefaultTurnLease).
	LeaseFor time.Duration
	// Lapse is what a reservation whose lease lapsed settles to: an
	// estimate of what its turn used before it died (Tokens and CostUSD;
	// its own Lapse is unused).
	Lapse *TokenCharge
}

// LapseTokens is the tokens c settles to once its lease lapses.
func (c TokenCharge) LapseTokens() int64 {
	if c.Lapse == nil {
		return 0
	}
	return c.Lapse.Tokens
}

// LapseCostUSD is the cost c settles to once its lease lapses.
func (c TokenCharge) LapseCostUSD() float64 {
	if c.Lapse == nil {
		return 0
	}
	return c.Lapse.CostUSD
}

// Lease is c's lease, DefaultTurnLease when unset.
func (c TokenCharge) Lease() time.Duration {
	if c.LeaseFor <= 0 {
		return DefaultTurnLease
	}
	return c.LeaseFor
}

// DailyLimits are a tenant's limits per UTC day; zero is no limit of that
// kind.
type DailyLimits struct {
	Tokens  int64
	CostUSD float64
}

// Settlement is what a charge settles to.
type Settlement struct {
	// Usage is what the turn used (zero for a turn that never ran).
	Usage Usage
	// Record adds Usage to the tenant's daily usage, for a turn that
	// stores no turn (a stateless one); a stored turn's usage is added
	// when it is stored.
	Record bool
}

// TokenLedger is the daily cap's counter.
type TokenLedger interface {
	// ChargeTokens first settles the tenant's reservations whose lease
	// lapsed to their estimates; then it adds the worst case's tokens and
	// cost to the tenant's charges today when both are under their
	// limits, in one atomic step, and reserves them for worst.Lease();
	// ErrOverLimit or ErrOverCostLimit when not. The charge returned
	// names its day and its reservation.
	ChargeTokens(ctx context.Context, tenantID string, worst TokenCharge, limits DailyLimits) (TokenCharge, error)
	// SettleTokens replaces charge c by what the turn used: the counters
	// move by s.Usage.TotalTokens - c.Tokens and by the usage's cost (zero
	// when unpriced) - c.CostUSD; when c's reservation lapsed already, by
	// the usage less c's estimate instead.
	SettleTokens(ctx context.Context, tenantID string, c TokenCharge, s Settlement) error
	// TenantChargedToday is the tenant's charged tokens on the current
	// UTC day: settled usage plus the charges of turns still running.
	TenantChargedToday(ctx context.Context, tenantID string) (int64, error)
}
