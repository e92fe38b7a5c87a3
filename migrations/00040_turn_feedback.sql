-- A user's thumbs up or down on one turn's answer, with an optional comment
-- (stored redacted). One row per turn: a later rating replaces it.
--
-- The row goes with its turn (and so with its conversation) by the
-- foreign key's cascade, and an answer asked again in place (a retry or a
-- regenerate puts the turn back to streaming) loses the feedback on the
-- answer it replaces.
--
-- Like every tenant-owned table, the rows carry tenant_id and owner_id
-- (set from the conversation on insert) and row-level security lets
-- through only the scope the store sets.

-- +goose Up
CREATE TABLE turn_feedback (
    tenant_id       uuid        NOT NULL,
    conversation_id uuid        NOT NULL,
    owner_id        text        NOT NULL,
    turn_number     integer     NOT NULL CHECK (turn_number > 0),
    rating          text        NOT NULL CHECK (rating IN ('up', 'down')),
    comment         text        NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, conversation_id, turn_number),
    FOREIGN KEY (tenant_id, conversation_id, turn_number)
        REFERENCES conversation_turns (tenant_id, conversation_id, turn_number) ON DELETE CASCADE
);

CREATE TRIGGER turn_feedback_owner BEFORE INSERT ON turn_feedback
    FOR EACH ROW EXECUTE FUNCTION regintel_conversation_owner();

-- +goose StatementBegin
CREATE FUNCTION regintel_turn_restarted() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    DELETE FROM turn_feedback f
    WHERE f.tenant_id = NEW.tenant_id AND f.conversation_id = NEW.conversation_id
      AND f.turn_number = NEW.turn_number;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER conversation_turns_restarted AFTER UPDATE OF status ON conversation_turns
    FOR EACH ROW WHEN (NEW.status = 'streaming' AND OLD.status <> 'streaming')
    EXECUTE FUNCTION regintel_turn_restarted();

ALTER TABLE turn_feedback ENABLE ROW LEVEL SECURITY;
ALTER TABLE turn_feedback FORCE ROW LEVEL SECURITY;
CREATE POLICY turn_feedback_owner ON turn_feedback
    USING (tenant_id = regintel_scope_tenant() AND owner_id = regintel_scope_owner());

-- +goose Down
DROP TRIGGER IF EXISTS conversation_turns_restarted ON conversation_turns;
DROP FUNCTION IF EXISTS regintel_turn_restarted();
DROP TABLE IF EXISTS turn_feedback;
