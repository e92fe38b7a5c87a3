-- The profile a conversation remembers between turns:
-- {"personaType": "...", "jurisdictions": ["IE", ...]}. Null until the first
-- turn or patch that sets one.

-- +goose Up
ALTER TABLE conversations ADD COLUMN profile jsonb;

-- +goose Down
ALTER TABLE conversations DROP COLUMN IF EXISTS profile;
