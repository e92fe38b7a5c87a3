-- A turn whose client went away mid-stream is "interrupted", distinct from
-- a model failure ("error"). A turn is stored as "streaming" when it
-- starts, so its number is known before the answer, and gets its final
-- status when it ends.

-- +goose Up
ALTER TABLE conversation_turns DROP CONSTRAINT conversation_turns_status_check;

ALTER TABLE conversation_turns
    ADD CONSTRAINT conversation_turns_status_check
    CHECK (status IN ('ok', 'error', 'context_required', 'interrupted', 'streaming'));

-- +goose Down
UPDATE conversation_turns SET status = 'error' WHERE status IN ('interrupted', 'streaming');

ALTER TABLE conversation_turns DROP CONSTRAINT conversation_turns_status_check;

ALTER TABLE conversation_turns
    ADD CONSTRAINT conversation_turns_status_check
    CHECK (status IN ('ok', 'error', 'context_required'));
