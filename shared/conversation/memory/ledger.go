package memory

import (
	"context"
	"time"

	"regintel/shared/conversation"
)

// ChargeTokens charges tokens while the tenant's ledger is under limit.
func (s *Store) ChargeTokens(_ context.Context, tenantID string, tokens, limit int64) (conversation.TokenCharge, error) {
	tenant, ok := canonical(tenantID)
	if !ok {
		return conversation.TokenCharge{}, ErrInvalidTenant
	}
	day := conversation.UsageDay(time.Now())
	s.mu.Lock()
	defer s.mu.Unlock()
	k := usageKey{tenant, day}
	if s.charged[k] >= limit {
		return conversation.TokenCharge{}, conversation.ErrOverLimit
	}
	s.charged[k] += tokens
	return conversation.TokenCharge{Day: day, Tokens: tokens}, nil
}

// SettleTokens moves the charge's day by what the turn used less the charge.
func (s *Store) SettleTokens(_ context.Context, tenantID string, c conversation.TokenCharge, settle conversation.Settlement) error {
	tenant, ok := canonical(tenantID)
	if !ok {
		return ErrInvalidTenant
	}
	used := int64(settle.Usage.TotalTokens)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.charged[usageKey{tenant, c.Day}] += used - c.Tokens
	if settle.Record {
		s.usage[usageKey{tenant, c.Day}] += used
	}
	return nil
}

// TenantChargedToday is the tenant's ledger on the current UTC day.
func (s *Store) TenantChargedToday(_ context.Context, tenantID string) (int64, error) {
	tenant, ok := canonical(tenantID)
	if !ok {
		return 0, ErrInvalidTenant
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.charged[usageKey{tenant, conversation.UsageDay(time.Now())}], nil
}
