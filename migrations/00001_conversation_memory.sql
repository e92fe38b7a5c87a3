-- Conversation memory (conversations and numbered turns) and the
-- conversation context (the concepts in scope).
-- Every table carries tenant_id and every child row is tied to its
-- conversation by (tenant_id, conversation_id), so a row can never point at
-- another tenant's conversation.

-- +goose Up
CREATE TABLE conversations (
    id               uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id        uuid        NOT NULL,
    owner_id         text        NOT NULL,
    title            text        NOT NULL DEFAULT '',
    jurisdictions    text[]      NOT NULL DEFAULT '{}',
    archived         boolean     NOT NULL DEFAULT false,
    -- Incremented by the statement that inserts a turn, so concurrent
    -- appends serialise on this row and get consecutive numbers.
    last_turn_number integer     NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    -- Target of the tenant-scoped foreign keys below.
    UNIQUE (tenant_id, id)
);

-- Listing a tenant's (or an owner's) conversations, most recent first.
CREATE INDEX conversations_tenant_updated_idx ON conversations (tenant_id, updated_at DESC);
CREATE INDEX conversations_tenant_owner_updated_idx ON conversations (tenant_id, owner_id, updated_at DESC);

CREATE TABLE conversation_turns (
    -- A uuid rather than an identity column: sequence calls pin RDS Proxy
    -- connections, and later tables may reference a turn by id.
    id               uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id        uuid        NOT NULL,
    conversation_id  uuid        NOT NULL,
    turn_number      integer     NOT NULL CHECK (turn_number > 0),
    user_text        text        NOT NULL,
    assistant_text   text        NOT NULL DEFAULT '',
    status           text        NOT NULL DEFAULT 'ok',
    provider         text        NOT NULL DEFAULT '',
    model            text        NOT NULL DEFAULT '',
    input_tokens     integer     NOT NULL DEFAULT 0,
    output_tokens    integer     NOT NULL DEFAULT 0,
    total_tokens     integer     NOT NULL DEFAULT 0,
    latency_ms       bigint      NOT NULL DEFAULT 0,
    referenced_nodes text[]      NOT NULL DEFAULT '{}',
    -- Per-turn extras: query composition, context budget used, warnings.
    metadata         jsonb       NOT NULL DEFAULT '{}',
    created_at       timestamptz NOT NULL DEFAULT now(),
    -- Also the index for "last N turns of a conversation".
    UNIQUE (conversation_id, turn_number),
    FOREIGN KEY (tenant_id, conversation_id)
        REFERENCES conversations (tenant_id, id) ON DELETE CASCADE
);

CREATE INDEX conversation_turns_tenant_created_idx ON conversation_turns (tenant_id, created_at);

-- One row per conversation: its active concepts, cascading with it.
CREATE TABLE conversation_context (
    tenant_id        uuid        NOT NULL,
    conversation_id  uuid        NOT NULL,
    context_json     jsonb       NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, conversation_id),
    FOREIGN KEY (tenant_id, conversation_id)
        REFERENCES conversations (tenant_id, id) ON DELETE CASCADE
);

-- The retention sweep finds stale context by age.
CREATE INDEX conversation_context_updated_idx ON conversation_context (updated_at);

-- merge_active_node_ids returns the union of an existing activeNodeIds array
-- and incoming ids, ordered by recency: an id seen again moves to the newest
-- end, empty ids are dropped, and only the newest max_nodes are kept.
-- Keeping it in SQL lets the store merge in the same statement that writes,
-- so concurrent turns never lose each other's ids.
-- +goose StatementBegin
CREATE FUNCTION merge_active_node_ids(existing jsonb, incoming text[], max_nodes integer)
RETURNS jsonb
LANGUAGE sql
IMMUTABLE
AS $$
    WITH previous AS (
        SELECT CASE WHEN jsonb_typeof(existing) = 'array' THEN existing ELSE '[]'::jsonb END AS ids
    ),
    positioned AS (
        SELECT e.id, e.pos
        FROM previous, jsonb_array_elements_text(previous.ids) WITH ORDINALITY AS e(id, pos)
        UNION ALL
        SELECT n.id, jsonb_array_length(previous.ids) + n.pos
        FROM previous, unnest(incoming) WITH ORDINALITY AS n(id, pos)
    ),
    newest AS (
        SELECT id, max(pos) AS pos
        FROM positioned
        WHERE id IS NOT NULL AND id <> ''
        GROUP BY id
        ORDER BY max(pos) DESC
        LIMIT greatest(max_nodes, 0)
    )
    SELECT coalesce(jsonb_agg(id ORDER BY pos), '[]'::jsonb) FROM newest
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION IF EXISTS merge_active_node_ids(jsonb, text[], integer);
DROP TABLE IF EXISTS conversation_context;
DROP TABLE IF EXISTS conversation_turns;
DROP TABLE IF EXISTS conversations;
