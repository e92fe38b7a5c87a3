-- The end of a turn is one round trip: the turn's outcome and its context
-- (the merged activeNodeIds, the supplied items its prompt used) go in one
-- batch, which runs as one transaction. The context part must not be able
-- to undo the turn: it runs in this function, whose exception block is a
-- savepoint, and a failure comes back as its message instead of an error.
-- It runs as the caller, under the caller's row-level security scope.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION regintel_save_turn_context(
    p_tenant uuid, p_conversation uuid, p_active text[], p_max_nodes integer, p_used uuid[])
RETURNS text
LANGUAGE plpgsql
AS $$
BEGIN
    IF cardinality(p_active) > 0 THEN
        INSERT INTO conversation_context AS cc (tenant_id, conversation_id, context_json, updated_at)
        SELECT c.tenant_id, c.id,
               jsonb_build_object('activeNodeIds', merge_active_node_ids('[]'::jsonb, p_active, p_max_nodes)),
               now()
        FROM conversations c
        WHERE c.tenant_id = p_tenant AND c.id = p_conversation AND c.owner_id = regintel_scope_owner()
        ON CONFLICT (tenant_id, conversation_id) DO UPDATE
        SET context_json = (CASE WHEN jsonb_typeof(cc.context_json) = 'object' THEN cc.context_json ELSE '{}'::jsonb END)
                || jsonb_build_object('activeNodeIds',
                       merge_active_node_ids(cc.context_json -> 'activeNodeIds', p_active, p_max_nodes)),
            updated_at = now();
    END IF;
    IF cardinality(p_used) > 0 THEN
        UPDATE supplied_context_items i SET last_used_at = now()
        WHERE i.tenant_id = p_tenant AND i.conversation_id = p_conversation AND i.id = ANY (p_used)
          AND i.owner_id = regintel_scope_owner();
    END IF;
    RETURN NULL;
EXCEPTION WHEN OTHERS THEN
    RETURN SQLERRM;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION IF EXISTS regintel_save_turn_context(uuid, uuid, text[], integer, uuid[]);
