package conversation

import (
	"context"
	"errors"
)

// The daily token cap is kept by a ledger of charges, one counter per
// tenant and UTC day. Before the model is called a turn charges its
// worst case, in one atomic step that succeeds only while the counter is
// under the limit; after the answer it settles the charge to what the turn
// used. Concurrent turns therefore see each other's charges, and a day's
// counter ends at most one turn's charge above the limit.

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
	// ChargeTokens adds the worst case's tokens and cost to the tenant's
	// charges today when both are under their limits, in one atomic step;
	// ErrOverLimit or ErrOverCostLimit when not. The charge returned
	// names its day.
	ChargeTokens(ctx context.Context, tenantID string, worst TokenCharge, limits DailyLimits) (TokenCharge, error)
	// SettleTokens replaces charge c by what the turn used: the counters
	// move by s.Usage.TotalTokens - c.Tokens and by the usage's cost (zero
	// when unpriced) - c.CostUSD.
	SettleTokens(ctx context.Context, tenantID string, c TokenCharge, s Settlement) error
	// TenantChargedToday is the tenant's charged tokens on the current
	// UTC day: settled usage plus the charges of turns still running.
	TenantChargedToday(ctx context.Context, tenantID string) (int64, error)
}
