-- Functions that guard data (the scope the row-level security policies
-- read, the owner copied onto a conversation's rows, the end-of-turn save
-- and the migration ledger's guard) ran with the caller's search_path. A
-- caller could put a temporary table named like a catalogue or a table
-- (pg_class, conversations) first on its path and answer the function's
-- lookups itself: a temporary pg_class naming the caller the ledger's
-- owner let it write the ledger. Each now runs with search_path =
-- pg_catalog and names every object of the schema with it.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.regintel_migration_ledger_owner_only() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
    IF NOT pg_catalog.pg_has_role(current_user,
                       (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'MEMBER') THEN
        RAISE EXCEPTION 'only the migration role may change the migration ledger %', TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.regintel_scope_tenant() RETURNS uuid
LANGUAGE sql STABLE
SET search_path = pg_catalog
AS $$ SELECT nullif(pg_catalog.current_setting('regintel.tenant_id', true), '')::pg_catalog.uuid $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.regintel_scope_owner() RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog
AS $$ SELECT nullif(pg_catalog.current_setting('regintel.owner_id', true), '') $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.regintel_conversation_owner() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
    NEW.owner_id := (SELECT c.owner_id FROM public.conversations c
                     WHERE c.tenant_id = NEW.tenant_id AND c.id = NEW.conversation_id);
    RETURN NEW;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.regintel_save_turn_context(
    p_tenant uuid, p_conversation uuid, p_active text[], p_max_nodes integer, p_used uuid[])
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
    IF pg_catalog.cardinality(p_active) > 0 THEN
        INSERT INTO public.conversation_context AS cc (tenant_id, conversation_id, context_json, updated_at)
        SELECT c.tenant_id, c.id,
               pg_catalog.jsonb_build_object('activeNodeIds', public.merge_active_node_ids('[]'::jsonb, p_active, p_max_nodes)),
               pg_catalog.now()
        FROM public.conversations c
        WHERE c.tenant_id = p_tenant AND c.id = p_conversation AND c.owner_id = public.regintel_scope_owner()
        ON CONFLICT (tenant_id, conversation_id) DO UPDATE
        SET context_json = (CASE WHEN pg_catalog.jsonb_typeof(cc.context_json) = 'object' THEN cc.context_json ELSE '{}'::jsonb END)
                || pg_catalog.jsonb_build_object('activeNodeIds',
                       public.merge_active_node_ids(cc.context_json -> 'activeNodeIds', p_active, p_max_nodes)),
            updated_at = pg_catalog.now();
    END IF;
    IF pg_catalog.cardinality(p_used) > 0 THEN
        UPDATE public.supplied_context_items i SET last_used_at = pg_catalog.now()
        WHERE i.tenant_id = p_tenant AND i.conversation_id = p_conversation AND i.id = ANY (p_used)
          AND i.owner_id = public.regintel_scope_owner();
    END IF;
    RETURN NULL;
EXCEPTION WHEN OTHERS THEN
    RETURN SQLERRM;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- The schema-qualified bodies work under any search_path; down only
-- returns the functions to the caller's.
ALTER FUNCTION public.regintel_migration_ledger_owner_only() RESET search_path;
ALTER FUNCTION public.regintel_scope_tenant() RESET search_path;
ALTER FUNCTION public.regintel_scope_owner() RESET search_path;
ALTER FUNCTION public.regintel_conversation_owner() RESET search_path;
ALTER FUNCTION public.regintel_save_turn_context(uuid, uuid, text[], integer, uuid[]) RESET search_path;
