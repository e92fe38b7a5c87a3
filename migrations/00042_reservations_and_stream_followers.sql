-- Two bounds held in the store, so they hold across instances.
--
-- tenant_token_reservations: a daily-cap charge not yet settled, held for
-- its turn's lease. A turn that dies unsettled (its process crashed) would
-- leave its worst case on tenant_token_ledger all day; once the lease
-- lapses the tenant's next charge settles the reservation to its estimate
-- (lapse_tokens, lapse_cost_usd) and deletes it. A turn's own settlement
-- deletes its reservation; when it finds none, the estimate was settled
-- already and it moves the ledger from that.
--
-- turn_stream_followers: the places of the clients following one
-- conversation's stream (GET /chat/{id}/stream), each held for a short
-- lease its follower renews; a follower takes a place only while fewer
-- than the limit are held. A place goes when its follower leaves, with
-- its conversation (the cascade), or by the retention sweep once lapsed.
--
-- Like every tenant-owned table, the rows carry tenant_id (and the
-- followers owner_id, set from the conversation on insert) and row-level
-- security lets through only the scope the store sets.

-- +goose Up
CREATE TABLE tenant_token_reservations (
    id             uuid           PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id      uuid           NOT NULL,
    day            date           NOT NULL,
    tokens         bigint         NOT NULL,
    cost_usd       numeric(16, 8) NOT NULL DEFAULT 0,
    lapse_tokens   bigint         NOT NULL DEFAULT 0,
    lapse_cost_usd numeric(16, 8) NOT NULL DEFAULT 0,
    lease_until    timestamptz    NOT NULL
);
CREATE INDEX tenant_token_reservations_lapse ON tenant_token_reservations (tenant_id, lease_until);

ALTER TABLE tenant_token_reservations ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_token_reservations FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_token_reservations_tenant ON tenant_token_reservations
    USING (tenant_id = regintel_scope_tenant());

CREATE TABLE turn_stream_followers (
    tenant_id       uuid        NOT NULL,
    conversation_id uuid        NOT NULL,
    owner_id        text        NOT NULL,
    place           uuid        NOT NULL,
    lease_until     timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, conversation_id, place),
    FOREIGN KEY (tenant_id, conversation_id)
        REFERENCES conversations (tenant_id, id) ON DELETE CASCADE
);

CREATE TRIGGER turn_stream_followers_owner BEFORE INSERT ON turn_stream_followers
    FOR EACH ROW EXECUTE FUNCTION regintel_conversation_owner();

ALTER TABLE turn_stream_followers ENABLE ROW LEVEL SECURITY;
ALTER TABLE turn_stream_followers FORCE ROW LEVEL SECURITY;
CREATE POLICY turn_stream_followers_owner ON turn_stream_followers
    USING (tenant_id = regintel_scope_tenant() AND owner_id = regintel_scope_owner());
CREATE POLICY turn_stream_followers_retention ON turn_stream_followers TO regintel_retention USING (true);

-- +goose Down
DROP TABLE IF EXISTS turn_stream_followers;
DROP TABLE IF EXISTS tenant_token_reservations;
