package memory

import (
	"context"
	"time"

	"regintel/shared/conversation"
)

// charges are a tenant's charges of one day.
type charges struct {
	tokens int64
	cost   float64
}

// ChargeTokens charges the worst case while the tenant's day is under
// both limits.
func (s *Store) ChargeTokens(ctx context.Context, tenantID string, worst conversation.TokenCharge, limits conversation.DailyLimits) (conversation.TokenCharge, error) {
	if err := ctx.Err(); err != nil {
		return conversation.TokenCharge{}, err
	}
	tenant, ok := canonical(tenantID)
	if !ok {
		return conversation.TokenCharge{}, conversation.ErrInvalidTenant
	}
	day := conversation.UsageDay(time.Now())
	s.mu.Lock()
	defer s.mu.Unlock()
	k := usageKey{tenant, day}
	c := s.charged[k]
	switch {
	case limits.Tokens > 0 && c.tokens >= limits.Tokens:
		return conversation.TokenCharge{}, conversation.ErrOverLimit
	case limits.CostUSD > 0 && c.cost >= limits.CostUSD:
		return conversation.TokenCharge{}, conversation.ErrOverCostLimit
	}
	s.charged[k] = charges{tokens: c.tokens + worst.Tokens, cost: c.cost + worst.CostUSD}
	worst.Day = day
	return worst, nil
}

// SettleTokens moves the charge's day by what the turn used less the charge.
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
	k := usageKey{tenant, c.Day}
	day := s.charged[k]
	s.charged[k] = charges{tokens: day.tokens + used - c.Tokens, cost: day.cost + cost - c.CostUSD}
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
