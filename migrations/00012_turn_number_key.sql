-- A turn's history is read as the newest turns of one conversation of one
-- tenant. Keyed (conversation_id, turn_number), the planner combined that
-- key with the tenant's (tenant_id, created_at) index, reading every turn
-- entry of the tenant on each load; keyed (tenant_id, conversation_id,
-- turn_number), the newest turns are one backward index scan. Turn numbers
-- stay unique per conversation (conversation ids are unique).

-- +goose NO TRANSACTION
-- +goose Up
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS conversation_turns_number_key
    ON conversation_turns (tenant_id, conversation_id, turn_number);
ALTER TABLE conversation_turns
    ADD CONSTRAINT conversation_turns_number_key UNIQUE USING INDEX conversation_turns_number_key;
ALTER TABLE conversation_turns DROP CONSTRAINT conversation_turns_conversation_id_turn_number_key;

-- +goose Down
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS conversation_turns_conversation_id_turn_number_key
    ON conversation_turns (conversation_id, turn_number);
ALTER TABLE conversation_turns
    ADD CONSTRAINT conversation_turns_conversation_id_turn_number_key UNIQUE USING INDEX conversation_turns_conversation_id_turn_number_key;
ALTER TABLE conversation_turns DROP CONSTRAINT conversation_turns_number_key;
