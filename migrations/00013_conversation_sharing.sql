-- What an owner asked a conversation to be shared with (the reference web
-- app's shareAudience and tenantAccess). Stored as asked; it grants no
-- access: every read stays scoped to the owner.
--
-- Like every tenant-owned table, its rows carry tenant_id and owner_id and
-- row-level security (migrations/00010) lets through only the scope the
-- store sets; the policy compares those columns, with no lookup of the
-- conversation. The runtime role's data access comes with the grants on
-- every table of the schema made after the migrations (shared/dbsetup).

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

ALTER TABLE conversation_sharing ENABLE ROW LEVEL SECURITY;
ALTER TABLE conversation_sharing FORCE ROW LEVEL SECURITY;
CREATE POLICY conversation_sharing_owner ON conversation_sharing
    USING (tenant_id = regintel_scope_tenant() AND owner_id = regintel_scope_owner());

-- +goose Down
DROP TABLE IF EXISTS conversation_sharing;
