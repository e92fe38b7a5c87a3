package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"regintel/shared/conversation"
)

// chargeTokens adds $2 to the tenant's ledger of today unless it already
// reached the limit $3. The conflict's WHERE is checked on the row as
// locked, so a concurrent charge waits and then sees this one: no row
// returned means the limit was reached and nothing was charged.
const chargeTokens = `
INSERT INTO tenant_token_ledger AS l (tenant_id, day, charged_tokens)
VALUES ($1::uuid, (now() AT TIME ZONE 'UTC')::date, $2::bigint)
ON CONFLICT (tenant_id, day) DO UPDATE
SET charged_tokens = l.charged_tokens + EXCLUDED.charged_tokens, updated_at = now()
WHERE l.charged_tokens < $3::bigint
RETURNING day::text`

// ChargeTokens charges tokens while the tenant's ledger is under limit.
func (s *Store) ChargeTokens(ctx context.Context, tenantID string, tokens, limit int64) (conversation.TokenCharge, error) {
	sc, err := scopeOf(ctx, tenantID)
	if err != nil {
		return conversation.TokenCharge{}, err
	}
	charge := conversation.TokenCharge{Tokens: tokens}
	err = sc.queryRow(ctx, s.pool, chargeTokens, tenantID, tokens, limit).Scan(&charge.Day)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return conversation.TokenCharge{}, conversation.ErrOverLimit
	case err != nil:
		return conversation.TokenCharge{}, fmt.Errorf("charge tokens: %w", err)
	}
	return charge, nil
}

// settleTokens moves the ledger of the charge's day $2 by the used tokens
// $3 less the charge $4 and, when $9, adds the usage to the tenant's daily
// usage on a random shard (such a turn has no conversation to pick one).
const settleTokens = `
WITH recorded AS (
    INSERT INTO tenant_daily_usage AS u (tenant_id, day, shard, input_tokens, output_tokens, total_tokens,
                                        cached_input_tokens, cost_usd, turns)
    SELECT $1::uuid, $2::date, floor(random() * 16)::smallint, $5::bigint, $6::bigint, $3::bigint,
           $7::bigint, coalesce($8::numeric, 0), 1
    WHERE $9::boolean
    ON CONFLICT (tenant_id, day, shard) DO UPDATE SET
        input_tokens = u.input_tokens + EXCLUDED.input_tokens,
        output_tokens = u.output_tokens + EXCLUDED.output_tokens,
        total_tokens = u.total_tokens + EXCLUDED.total_tokens,
        cached_input_tokens = u.cached_input_tokens + EXCLUDED.cached_input_tokens,
        cost_usd = u.cost_usd + EXCLUDED.cost_usd,
        turns = u.turns + 1,
        updated_at = now()
)
UPDATE tenant_token_ledger
SET charged_tokens = charged_tokens + $3::bigint - $4::bigint, updated_at = now()
WHERE tenant_id = $1::uuid AND day = $2::date`

// SettleTokens replaces the charge by what the turn used.
func (s *Store) SettleTokens(ctx context.Context, tenantID string, c conversation.TokenCharge, settle conversation.Settlement) error {
	sc, err := scopeOf(ctx, tenantID)
	if err != nil {
		return err
	}
	u := settle.Usage
	if _, err := sc.exec(ctx, s.pool, settleTokens, tenantID, c.Day, int64(u.TotalTokens), c.Tokens,
		int64(u.InputTokens), int64(u.OutputTokens), int64(u.CachedInputTokens), u.CostUSD, settle.Record); err != nil {
		return fmt.Errorf("settle tokens: %w", err)
	}
	return nil
}

const selectTenantChargedToday = `
SELECT coalesce(sum(charged_tokens), 0) FROM tenant_token_ledger
WHERE tenant_id = $1::uuid AND day = (now() AT TIME ZONE 'UTC')::date`

// TenantChargedToday is the tenant's ledger on the current UTC day.
func (s *Store) TenantChargedToday(ctx context.Context, tenantID string) (int64, error) {
	sc, err := scopeOf(ctx, tenantID)
	if err != nil {
		return 0, err
	}
	var tokens int64
	if err := sc.queryRow(ctx, s.pool, selectTenantChargedToday, tenantID).Scan(&tokens); err != nil {
		return 0, fmt.Errorf("tenant charged tokens: %w", err)
	}
	return tokens, nil
}
