-- The daily token cap's ledger: one counter per tenant and UTC day. A turn
-- charges its worst case here before the model is called, in one statement
-- that holds the row's lock, and settles to what it used after the answer.
-- Concurrent turns of a tenant therefore queue on this row only when a cap
-- is set, and each sees the charges of those before it; the sharded
-- tenant_daily_usage keeps recording what stored turns used.

-- +goose Up
CREATE TABLE tenant_token_ledger (
    tenant_id      uuid        NOT NULL,
    day            date        NOT NULL,
    charged_tokens bigint      NOT NULL DEFAULT 0,
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, day)
);

ALTER TABLE tenant_token_ledger ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_token_ledger FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_token_ledger_tenant ON tenant_token_ledger
    USING (tenant_id = regintel_scope_tenant());

-- +goose Down
DROP TABLE IF EXISTS tenant_token_ledger;
