-- Context handoff (the model asks for context the user supplies) and
-- supplied context that persists per conversation. Like every table, both carry tenant_id and
-- reach their conversation through (tenant_id, conversation_id), so deleting
-- a conversation erases them in the same statement.

-- +goose Up
CREATE TABLE context_requests (
    id               uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id        uuid        NOT NULL,
    conversation_id  uuid        NOT NULL,
    status           text        NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'fulfilled', 'expired', 'skipped')),
    -- What the model asked for: [{key, description, kind, required}].
    items            jsonb       NOT NULL DEFAULT '[]',
    -- The user message that is answered once the context arrives.
    question         text        NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now(),
    expires_at       timestamptz NOT NULL,
    resolved_at      timestamptz,
    -- Lets supplied items name their request without crossing tenants.
    UNIQUE (tenant_id, id),
    FOREIGN KEY (tenant_id, conversation_id)
        REFERENCES conversations (tenant_id, id) ON DELETE CASCADE
);

CREATE INDEX context_requests_tenant_conversation_idx
    ON context_requests (tenant_id, conversation_id, created_at DESC);
-- The expiry sweep only ever looks at pending requests.
CREATE INDEX context_requests_pending_expiry_idx
    ON context_requests (expires_at) WHERE status = 'pending';

CREATE TABLE supplied_context_items (
    id               uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id        uuid        NOT NULL,
    conversation_id  uuid        NOT NULL,
    -- Null when supplied without a request (inline, unsolicited).
    request_id       uuid,
    key              text        NOT NULL,
    kind             text        NOT NULL DEFAULT 'text'
                     CHECK (kind IN ('profile_fact', 'document', 'text')),
    content          text        NOT NULL,
    -- Whether PII was redacted from content before it was stored.
    redacted         boolean     NOT NULL DEFAULT false,
    created_at       timestamptz NOT NULL DEFAULT now(),
    -- Touched whenever a turn puts the item in its prompt; retention
    -- deletes items unused for N days.
    last_used_at     timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (tenant_id, conversation_id)
        REFERENCES conversations (tenant_id, id) ON DELETE CASCADE,
    -- A deleted request takes nothing with it: its items stay supplied.
    FOREIGN KEY (tenant_id, request_id)
        REFERENCES context_requests (tenant_id, id) ON DELETE SET NULL (request_id)
);

CREATE INDEX supplied_context_items_tenant_conversation_idx
    ON supplied_context_items (tenant_id, conversation_id, created_at);
CREATE INDEX supplied_context_items_last_used_idx
    ON supplied_context_items (last_used_at);

-- +goose Down
DROP TABLE IF EXISTS supplied_context_items;
DROP TABLE IF EXISTS context_requests;
