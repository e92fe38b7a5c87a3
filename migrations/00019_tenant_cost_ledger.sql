-- The daily cap's ledger also counts cost in US dollars, for an optional
-- daily cost limit: a turn charges its worst-case cost with its worst-case
-- tokens, in the same statement, and settles both.

-- +goose Up
ALTER TABLE tenant_token_ledger ADD COLUMN charged_cost_usd numeric(16, 8) NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE tenant_token_ledger DROP COLUMN IF EXISTS charged_cost_usd;
