package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"regintel/shared/conversation"
)

// settleLapsedReservations settles the tenant's reservations whose lease
// lapsed to their estimates: each is deleted, and its day moved from what
// it held to the estimate. A concurrent charge that reaches the same rows
// waits for this one and then finds them gone, so none is settled twice.
const settleLapsedReservations = `
WITH lapsed AS (
    DELETE FROM tenant_token_reservations
    WHERE tenant_id = $1::uuid AND lease_until <= now()
    RETURNING day, lapse_tokens - tokens AS tokens, lapse_cost_usd - cost_usd AS cost_usd
), by_day AS (
    SELECT day, sum(tokens) AS tokens, sum(cost_usd) AS cost_usd FROM lapsed GROUP BY day
)
UPDATE tenant_token_ledger l
SET charged_tokens = l.charged_tokens + b.tokens, charged_cost_usd = l.charged_cost_usd + b.cost_usd, updated_at = now()
FROM by_day b
WHERE l.tenant_id = $1::uuid AND l.day = b.day`

// chargeTokens adds the tokens $2 and cost $3 to the tenant's ledger of
// today unless it already reached the token limit $4 or the cost limit $5
// (zero: none), and reserves them for $8 milliseconds with the estimate
// $6 tokens and $7 dollars. The conflict's WHERE is checked on the row as
// locked, so a concurrent charge waits and then sees this one: no row
// returned means a limit was reached and nothing was charged.
const chargeTokens = `
WITH charged AS (
    INSERT INTO tenant_token_ledger AS l (tenant_id, day, charged_tokens, charged_cost_usd)
    VALUES ($1::uuid, (now() AT TIME ZONE 'UTC')::date, $2::bigint, $3::numeric)
    ON CONFLICT (tenant_id, day) DO UPDATE
    SET charged_tokens = l.charged_tokens + EXCLUDED.charged_tokens,
        charged_cost_usd = l.charged_cost_usd + EXCLUDED.charged_cost_usd, updated_at = now()
    WHERE ($4::bigint = 0 OR l.charged_tokens < $4::bigint)
      AND ($5::numeric = 0 OR l.charged_cost_usd < $5::numeric)
    RETURNING day
)
INSERT INTO tenant_token_reservations (tenant_id, day, tokens, cost_usd, lapse_tokens, lapse_cost_usd, lease_until)
SELECT $1::uuid, day, $2::bigint, $3::numeric, $6::bigint, $7::numeric, now() + $8::bigint * interval '1 millisecond'
FROM charged
RETURNING id::text, day::text`

// selectChargedToday reads the ledger after a charge in the same batch, to
// name the limit a refused charge met.
const selectChargedToday = `
SELECT coalesce(sum(charged_tokens), 0), coalesce(sum(charged_cost_usd), 0)::float8 FROM tenant_token_ledger
WHERE tenant_id = $1::uuid AND day = (now() AT TIME ZONE 'UTC')::date`

// ChargeTokens charges the worst case while the tenant's day is under
// both limits, in one round trip.
func (s *Store) ChargeTokens(ctx context.Context, tenantID string, worst conversation.TokenCharge, limits conversation.DailyLimits) (conversation.TokenCharge, error) {
	sc, err := scopeOf(ctx, tenantID)
	if err != nil {
		return conversation.TokenCharge{}, err
	}
	batch := sc.newBatch()
	batch.Queue(settleLapsedReservations, tenantID)
	batch.Queue(chargeTokens, tenantID, worst.Tokens, worst.CostUSD, max(limits.Tokens, 0), max(limits.CostUSD, 0),
		worst.LapseTokens(), worst.LapseCostUSD(), worst.Lease().Milliseconds())
	batch.Queue(selectChargedToday, tenantID)
	results, err := send(ctx, s.pool, batch)
	if err != nil {
		return conversation.TokenCharge{}, fmt.Errorf("charge tokens: %w", err)
	}
	defer results.Close()
	if _, err := results.Exec(); err != nil {
		return conversation.TokenCharge{}, fmt.Errorf("charge tokens: settle lapsed reservations: %w", err)
	}
	chargeErr := results.QueryRow().Scan(&worst.ID, &worst.Day)
	var tokens int64
	var cost float64
	if err := results.QueryRow().Scan(&tokens, &cost); err != nil {
		return conversation.TokenCharge{}, fmt.Errorf("charge tokens: %w", err)
	}
	switch {
	case errors.Is(chargeErr, pgx.ErrNoRows) && limits.Tokens > 0 && tokens >= limits.Tokens:
		return conversation.TokenCharge{}, conversation.ErrOverLimit
	case errors.Is(chargeErr, pgx.ErrNoRows):
		return conversation.TokenCharge{}, conversation.ErrOverCostLimit
	case chargeErr != nil:
		return conversation.TokenCharge{}, fmt.Errorf("charge tokens: %w", chargeErr)
	}
	return worst, results.Close()
}

// insertDailyUsage and addToDailyUsage open and close every statement that
// adds a turn's usage to its tenant's day: the SELECT between them names
// the shard and the values.
const (
	insertDailyUsage = `    INSERT INTO tenant_daily_usage AS u (tenant_id, day, shard, input_tokens, output_tokens, total_tokens,
                                        cached_input_tokens, cost_usd, turns)`
	addToDailyUsage = `    ON CONFLICT (tenant_id, day, shard) DO UPDATE SET
        input_tokens = u.input_tokens + EXCLUDED.input_tokens,
        output_tokens = u.output_tokens + EXCLUDED.output_tokens,
        total_tokens = u.total_tokens + EXCLUDED.total_tokens,
        cached_input_tokens = u.cached_input_tokens + EXCLUDED.cached_input_tokens,
        cost_usd = u.cost_usd + EXCLUDED.cost_usd,
        turns = u.turns + 1,
        updated_at = now()`
)

// settleTokens moves the ledger of the charge's day $2 by the used tokens
// $3 less what the ledger holds for the charge, and by the cost $8 less
// the cost it holds: the charge $4 and $10 while its reservation $11 is
// there (deleted now) or when it has none, else the lapse estimate $12
// and $13 it was settled to; when $9 it adds the usage to the tenant's
// daily usage on a random shard (such a turn has no conversation to pick
// one).
const settleTokens = `
WITH reservation AS (
    DELETE FROM tenant_token_reservations
    WHERE tenant_id = $1::uuid AND id = nullif($11::text, '')::uuid
    RETURNING tokens, cost_usd
), held AS (
    SELECT coalesce((SELECT tokens FROM reservation), CASE WHEN $11::text = '' THEN $4::bigint ELSE $12::bigint END) AS tokens,
           coalesce((SELECT cost_usd FROM reservation), CASE WHEN $11::text = '' THEN $10::numeric ELSE $13::numeric END) AS cost_usd
), recorded AS (
` + insertDailyUsage + `
    SELECT $1::uuid, $2::date, floor(random() * 16)::smallint, $5::bigint, $6::bigint, $3::bigint,
           $7::bigint, coalesce($8::numeric, 0), 1
    WHERE $9::boolean
` + addToDailyUsage + `
)
UPDATE tenant_token_ledger
SET charged_tokens = charged_tokens + $3::bigint - (SELECT tokens FROM held),
    charged_cost_usd = charged_cost_usd + coalesce($8::numeric, 0) - (SELECT cost_usd FROM held), updated_at = now()
WHERE tenant_id = $1::uuid AND day = $2::date`

// SettleTokens replaces the charge by what the turn used.
func (s *Store) SettleTokens(ctx context.Context, tenantID string, c conversation.TokenCharge, settle conversation.Settlement) error {
	sc, err := scopeOf(ctx, tenantID)
	if err != nil {
		return err
	}
	u := settle.Usage
	if _, err := sc.exec(ctx, s.pool, settleTokens, tenantID, c.Day, int64(u.TotalTokens), c.Tokens,
		int64(u.InputTokens), int64(u.OutputTokens), int64(u.CachedInputTokens), u.CostUSD, settle.Record, c.CostUSD, c.ID, c.LapseTokens(), c.LapseCostUSD()); err != nil {
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
