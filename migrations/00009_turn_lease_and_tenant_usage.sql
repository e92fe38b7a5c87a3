-- One active turn per conversation, and token usage per tenant per UTC day.
--
-- A turn takes the conversation's lease when it loads the conversation and
-- gives it back when it stores its turn. The lease expires on its own, so a
-- turn that dies mid-stream holds the conversation only until then.
--
-- tenant_daily_usage is added to by the statement that stores a turn; a
-- turn reads its tenant's row for today with its load, so an optional
-- daily cap costs no extra round trip.

-- +goose Up
ALTER TABLE conversations
    ADD COLUMN turn_lease_id    uuid,
    ADD COLUMN turn_lease_until timestamptz;

CREATE TABLE tenant_daily_usage (
    tenant_id     uuid        NOT NULL,
    day           date        NOT NULL,
    input_tokens  bigint      NOT NULL DEFAULT 0,
    output_tokens bigint      NOT NULL DEFAULT 0,
    total_tokens  bigint      NOT NULL DEFAULT 0,
    turns         integer     NOT NULL DEFAULT 0,
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, day)
);

-- +goose Down
DROP TABLE IF EXISTS tenant_daily_usage;
ALTER TABLE conversations
    DROP COLUMN IF EXISTS turn_lease_until,
    DROP COLUMN IF EXISTS turn_lease_id;
