-- What an owner asked a conversation to be shared with (the reference web
-- app's shareAudience and tenantAccess). Stored as asked; it grants no
-- access: every read stays scoped to the owner.

-- +goose Up
CREATE TABLE conversation_sharing (
    tenant_id       uuid        NOT NULL,
    conversation_id uuid        NOT NULL,
    owner_id        text        NOT NULL,
    share_audience  text        NOT NULL CHECK (share_audience IN ('private', 'tenant', 'public')),
    tenant_access   text        NOT NULL CHECK (tenant_access IN ('view', 'edit')),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, conversation_id),
    FOREIGN KEY (tenant_id, conversation_id)
        REFERENCES conversations (tenant_id, id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE IF EXISTS conversation_sharing;
