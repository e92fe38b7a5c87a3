-- One supplied item per key and conversation. Supplying a key again replaces
-- the item; the unique index makes that an atomic upsert, so two supplies of
-- the same key at the same instant cannot leave two rows.

-- +goose Up
DELETE FROM supplied_context_items older
USING supplied_context_items newer
WHERE older.tenant_id = newer.tenant_id
  AND older.conversation_id = newer.conversation_id
  AND older.key = newer.key
  AND (older.created_at, older.id) < (newer.created_at, newer.id);

CREATE UNIQUE INDEX supplied_context_items_key_unique
    ON supplied_context_items (tenant_id, conversation_id, key);

-- +goose Down
DROP INDEX IF EXISTS supplied_context_items_key_unique;
