package memory

import (
	"context"
	"time"

	"github.com/google/uuid"

	"regintel/shared/conversation"
)

// charges are a tenant's charges of one day.
type charges struct {
	tokens int64
	cost   float64
}

// reservation is a charge not settled yet, held for its turn's lease.
type reservation struct {
	day   usageKey
	held  charges // what the ledger holds for it
	lapse charges // what it settles to once its lease lapses
	until time.Time
}

// ChargeTokens settles the tenant's lapsed reservations, then charges the
// worst case while the tenant's day is under both limits.
func (s *Store) ChargeTokens(ctx context.Context, tenantID string, worst conversation.TokenCharge, limits conversation.DailyLimits) (conversation.TokenCharge, error) {
	if err := ctx.Err(); err != nil {
		return conversation.TokenCharge{}, err
	}
	tenant, ok := canonical(tenantID)
	if !ok {
		return conversation.TokenCharge{}, conversation.ErrInvalidTenant
	}
	now := time.Now()
	day := conversation.UsageDay(now)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleLapsed(tenant, now)
	k := usageKey{tenant, day}
	c := s.charged[k]
	switch {
	case limits.Tokens > 0 && c.tokens >= limits.Tokens:
		return conversation.TokenCharge{}, conversation.ErrOverLimit
	case limits.CostUSD > 0 && c.cost >= limits.CostUSD:
		return conversation.TokenCharge{}, conversation.ErrOverCostLimit
	}
	s.charged[k] = charges{tokens: c.tokens + worst.Tokens, cost: c.cost + worst.CostUSD}
	worst.Day, worst.ID = day, uuid.NewString()
	if s.reserved[tenant] == nil {
		s.reserved[tenant] = map[string]reservation{}
	}
	s.reserved[tenant][worst.ID] = reservation{day: k, held: charges{worst.Tokens, worst.CostUSD},
		lapse: charges{worst.LapseTokens(), worst.LapseCostUSD()}, until: now.Add(worst.Lease())}
	return worst, nil
}

// settleLapsed settles the tenant's reservations whose lease lapsed to
// their estimates. The caller holds s.mu.
func (s *Store) settleLapsed(tenant string, now time.Time) {
	for id, r := range s.reserved[tenant] {
		if now.Before(r.until) {
			continue
		}
		day := s.charged[r.day]
		s.charged[r.day] = charges{tokens: day.tokens - r.held.tokens + r.lapse.tokens, cost: day.cost - r.held.cost + r.lapse.cost}
		delete(s.reserved[tenant], id)
	}
}

// SettleTokens moves the charge's day by what the turn used less what the
// ledger holds for it: the charge, or its estimate once its lease lapsed.
func (s *Store) SettleTokens(ctx context.Context, tenantID string, c conversation.TokenCharge, settle conversation.Settlement) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	tenant, ok := canonical(tenantID)
	if !ok {
		return conversation.ErrInvalidTenant
	}
	used := int64(settle.Usage.TotalTokens)
	cost := 0.0
	if settle.Usage.CostUSD != nil {
		cost = *settle.Usage.CostUSD
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	held := charges{c.Tokens, c.CostUSD}
	if c.ID != "" {
		if _, ok := s.reserved[tenant][c.ID]; ok {
			delete(s.reserved[tenant], c.ID)
		} else {
			held = charges{c.LapseTokens(), c.LapseCostUSD()}
		}
	}
	k := usageKey{tenant, c.Day}
	day := s.charged[k]
	s.charged[k] = charges{tokens: day.tokens + used - held.tokens, cost: day.cost + cost - held.cost}
	if settle.Record {
		s.usage[k] += used
	}
	return nil
}

// TenantChargedToday is the tenant's charged tokens on the current UTC day.
func (s *Store) TenantChargedToday(ctx context.Context, tenantID string) (int64, error) {
	k, err := todayKey(ctx, tenantID)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.charged[k].tokens, nil
}

// todayKey names the tenant's current UTC day, once ctx is live and the
// tenant id well formed.
func todayKey(ctx context.Context, tenantID string) (usageKey, error) {
	if err := ctx.Err(); err != nil {
		return usageKey{}, err
	}
	tenant, ok := canonical(tenantID)
	if !ok {
		return usageKey{}, conversation.ErrInvalidTenant
	}
	return usageKey{tenant, conversation.UsageDay(time.Now())}, nil
}
