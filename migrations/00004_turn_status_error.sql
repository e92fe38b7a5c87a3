-- A failed turn is "error", in storage as on the wire. Older rows said
-- "failed"; they are rewritten, and the check keeps statuses to the three
-- a turn can end with.

-- +goose Up
UPDATE conversation_turns SET status = 'error' WHERE status = 'failed';

ALTER TABLE conversation_turns
    ADD CONSTRAINT conversation_turns_status_check
    CHECK (status IN ('ok', 'error', 'context_required'));

-- +goose Down
ALTER TABLE conversation_turns DROP CONSTRAINT IF EXISTS conversation_turns_status_check;

UPDATE conversation_turns SET status = 'failed' WHERE status = 'error';
