-- A turn's usage carries the input tokens the provider served from its
-- prompt cache and the turn's cost in US dollars at the model's prices;
-- the tenant's daily usage sums both. A turn of a model without a price
-- has no cost (null), and adds nothing to the day's cost. usage_estimated
-- marks a turn whose usage is partly our count (a model call cut off
-- before its usage arrived).

-- +goose Up
ALTER TABLE conversation_turns
    ADD COLUMN cached_input_tokens integer NOT NULL DEFAULT 0,
    ADD COLUMN cost_usd numeric(16, 8),
    ADD COLUMN usage_estimated boolean NOT NULL DEFAULT false;
ALTER TABLE tenant_daily_usage
    ADD COLUMN cached_input_tokens bigint NOT NULL DEFAULT 0,
    ADD COLUMN cost_usd numeric(16, 8) NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE tenant_daily_usage DROP COLUMN IF EXISTS cost_usd, DROP COLUMN IF EXISTS cached_input_tokens;
ALTER TABLE conversation_turns DROP COLUMN IF EXISTS usage_estimated, DROP COLUMN IF EXISTS cost_usd,
    DROP COLUMN IF EXISTS cached_input_tokens;
