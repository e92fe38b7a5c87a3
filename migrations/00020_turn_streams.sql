-- A running turn's stream, kept as it is written so any instance can replay
-- it and follow it to its end, and the stop a client asks for.
--
-- turn_stream_events holds the events of the conversation's latest
-- recorded turn, in order (seq from 0); the first write of a turn clears
-- the earlier turn's. turn_streams is one row per conversation: the turn
-- being recorded and whether a stop was asked, which the running turn
-- reads back with each write.
--
-- Like every tenant-owned table, the rows carry tenant_id and owner_id
-- (set from the conversation on insert) and row-level security lets
-- through only the scope the store sets.

-- +goose Up
CREATE TABLE turn_streams (
    tenant_id       uuid        NOT NULL,
    conversation_id uuid        NOT NULL,
    owner_id        text        NOT NULL,
    turn_number     integer     NOT NULL CHECK (turn_number > 0),
    stop_requested  boolean     NOT NULL DEFAULT false,
    -- The wire format the turn's client asked for (a reconnect's default).
    format          text        NOT NULL DEFAULT '',
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, conversation_id),
    FOREIGN KEY (tenant_id, conversation_id)
        REFERENCES conversations (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE turn_stream_events (
    tenant_id       uuid    NOT NULL,
    conversation_id uuid    NOT NULL,
    owner_id        text    NOT NULL,
    turn_number     integer NOT NULL,
    seq             integer NOT NULL CHECK (seq >= 0),
    name            text    NOT NULL,
    -- The event's JSON as sent, byte for byte.
    data            text    NOT NULL,
    PRIMARY KEY (tenant_id, conversation_id, seq),
    FOREIGN KEY (tenant_id, conversation_id)
        REFERENCES conversations (tenant_id, id) ON DELETE CASCADE
);

CREATE TRIGGER turn_streams_owner BEFORE INSERT ON turn_streams
    FOR EACH ROW EXECUTE FUNCTION regintel_conversation_owner();
CREATE TRIGGER turn_stream_events_owner BEFORE INSERT ON turn_stream_events
    FOR EACH ROW EXECUTE FUNCTION regintel_conversation_owner();

ALTER TABLE turn_streams ENABLE ROW LEVEL SECURITY;
ALTER TABLE turn_streams FORCE ROW LEVEL SECURITY;
CREATE POLICY turn_streams_owner ON turn_streams
    USING (tenant_id = regintel_scope_tenant() AND owner_id = regintel_scope_owner());
ALTER TABLE turn_stream_events ENABLE ROW LEVEL SECURITY;
ALTER TABLE turn_stream_events FORCE ROW LEVEL SECURITY;
CREATE POLICY turn_stream_events_owner ON turn_stream_events
    USING (tenant_id = regintel_scope_tenant() AND owner_id = regintel_scope_owner());

-- +goose Down
DROP TABLE IF EXISTS turn_stream_events;
DROP TABLE IF EXISTS turn_streams;
