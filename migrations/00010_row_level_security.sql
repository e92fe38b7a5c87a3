-- Row-level security: the database itself keeps tenants apart and a
-- conversation to the user who started it, whatever a query forgets.
--
-- The store starts every batch and transaction with
--   set_config('regintel.tenant_id', <tenant>, true),
--   set_config('regintel.owner_id', <user>, true)
-- so the scope lasts for that transaction only. Without it the policies
-- see no tenant and every table looks empty. FORCE applies the policies to
-- the tables' owner too; the runtime role owns nothing and is granted data
-- access only (shared/dbsetup).
--
-- The retention sweep works across tenants: its login role is a member of
-- regintel_retention, which has a policy of its own on the tables it
-- sweeps.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION regintel_scope_tenant() RETURNS uuid
LANGUAGE sql STABLE
AS $$ SELECT nullif(current_setting('regintel.tenant_id', true), '')::uuid $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION regintel_scope_owner() RETURNS text
LANGUAGE sql STABLE
AS $$ SELECT nullif(current_setting('regintel.owner_id', true), '') $$;
-- +goose StatementEnd

-- Roles are cluster-wide: another database on the server may have made it.
-- +goose StatementBegin
DO $$ BEGIN
    CREATE ROLE regintel_retention NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;
-- +goose StatementEnd

ALTER TABLE conversations ENABLE ROW LEVEL SECURITY;
ALTER TABLE conversations FORCE ROW LEVEL SECURITY;
CREATE POLICY conversations_owner ON conversations
    USING (tenant_id = regintel_scope_tenant() AND owner_id = regintel_scope_owner());

-- Rows tied to a conversation carry its owner, set from the conversation
-- as they are inserted, so their policies compare columns like the
-- conversations policy: a policy that looked the conversation up for every
-- row made each statement costlier to plan and to run.
ALTER TABLE conversation_turns ADD COLUMN owner_id text;
ALTER TABLE conversation_context ADD COLUMN owner_id text;
ALTER TABLE context_requests ADD COLUMN owner_id text;
ALTER TABLE supplied_context_items ADD COLUMN owner_id text;
UPDATE conversation_turns x SET owner_id = c.owner_id FROM conversations c WHERE c.tenant_id = x.tenant_id AND c.id = x.conversation_id;
UPDATE conversation_context x SET owner_id = c.owner_id FROM conversations c WHERE c.tenant_id = x.tenant_id AND c.id = x.conversation_id;
UPDATE context_requests x SET owner_id = c.owner_id FROM conversations c WHERE c.tenant_id = x.tenant_id AND c.id = x.conversation_id;
UPDATE supplied_context_items x SET owner_id = c.owner_id FROM conversations c WHERE c.tenant_id = x.tenant_id AND c.id = x.conversation_id;
ALTER TABLE conversation_turns ALTER COLUMN owner_id SET NOT NULL;
ALTER TABLE conversation_context ALTER COLUMN owner_id SET NOT NULL;
ALTER TABLE context_requests ALTER COLUMN owner_id SET NOT NULL;
ALTER TABLE supplied_context_items ALTER COLUMN owner_id SET NOT NULL;

-- +goose StatementBegin
CREATE FUNCTION regintel_conversation_owner() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    NEW.owner_id := (SELECT c.owner_id FROM conversations c
                     WHERE c.tenant_id = NEW.tenant_id AND c.id = NEW.conversation_id);
    RETURN NEW;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER conversation_turns_owner BEFORE INSERT ON conversation_turns
    FOR EACH ROW EXECUTE FUNCTION regintel_conversation_owner();
CREATE TRIGGER conversation_context_owner BEFORE INSERT ON conversation_context
    FOR EACH ROW EXECUTE FUNCTION regintel_conversation_owner();
CREATE TRIGGER context_requests_owner BEFORE INSERT ON context_requests
    FOR EACH ROW EXECUTE FUNCTION regintel_conversation_owner();
CREATE TRIGGER supplied_context_items_owner BEFORE INSERT ON supplied_context_items
    FOR EACH ROW EXECUTE FUNCTION regintel_conversation_owner();

ALTER TABLE conversation_turns ENABLE ROW LEVEL SECURITY;
ALTER TABLE conversation_turns FORCE ROW LEVEL SECURITY;
CREATE POLICY conversation_turns_owner ON conversation_turns
    USING (tenant_id = regintel_scope_tenant() AND owner_id = regintel_scope_owner());

ALTER TABLE conversation_context ENABLE ROW LEVEL SECURITY;
ALTER TABLE conversation_context FORCE ROW LEVEL SECURITY;
CREATE POLICY conversation_context_owner ON conversation_context
    USING (tenant_id = regintel_scope_tenant() AND owner_id = regintel_scope_owner());

ALTER TABLE context_requests ENABLE ROW LEVEL SECURITY;
ALTER TABLE context_requests FORCE ROW LEVEL SECURITY;
CREATE POLICY context_requests_owner ON context_requests
    USING (tenant_id = regintel_scope_tenant() AND owner_id = regintel_scope_owner());

ALTER TABLE supplied_context_items ENABLE ROW LEVEL SECURITY;
ALTER TABLE supplied_context_items FORCE ROW LEVEL SECURITY;
CREATE POLICY supplied_context_items_owner ON supplied_context_items
    USING (tenant_id = regintel_scope_tenant() AND owner_id = regintel_scope_owner());

ALTER TABLE tenant_daily_usage ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_daily_usage FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_daily_usage_tenant ON tenant_daily_usage
    USING (tenant_id = regintel_scope_tenant());

-- The sweep reads conversations (to judge idleness) and deletes or expires
-- engine memory of every tenant.
CREATE POLICY conversations_retention ON conversations TO regintel_retention USING (true);
CREATE POLICY conversation_context_retention ON conversation_context TO regintel_retention USING (true);
CREATE POLICY context_requests_retention ON context_requests TO regintel_retention USING (true);
CREATE POLICY supplied_context_items_retention ON supplied_context_items TO regintel_retention USING (true);

-- +goose Down
DROP POLICY IF EXISTS supplied_context_items_retention ON supplied_context_items;
DROP POLICY IF EXISTS context_requests_retention ON context_requests;
DROP POLICY IF EXISTS conversation_context_retention ON conversation_context;
DROP POLICY IF EXISTS conversations_retention ON conversations;
DROP POLICY IF EXISTS tenant_daily_usage_tenant ON tenant_daily_usage;
DROP POLICY IF EXISTS supplied_context_items_owner ON supplied_context_items;
DROP POLICY IF EXISTS context_requests_owner ON context_requests;
DROP POLICY IF EXISTS conversation_context_owner ON conversation_context;
DROP POLICY IF EXISTS conversation_turns_owner ON conversation_turns;
DROP POLICY IF EXISTS conversations_owner ON conversations;
ALTER TABLE tenant_daily_usage NO FORCE ROW LEVEL SECURITY;
ALTER TABLE tenant_daily_usage DISABLE ROW LEVEL SECURITY;
ALTER TABLE supplied_context_items NO FORCE ROW LEVEL SECURITY;
ALTER TABLE supplied_context_items DISABLE ROW LEVEL SECURITY;
ALTER TABLE context_requests NO FORCE ROW LEVEL SECURITY;
ALTER TABLE context_requests DISABLE ROW LEVEL SECURITY;
ALTER TABLE conversation_context NO FORCE ROW LEVEL SECURITY;
ALTER TABLE conversation_context DISABLE ROW LEVEL SECURITY;
ALTER TABLE conversation_turns NO FORCE ROW LEVEL SECURITY;
ALTER TABLE conversation_turns DISABLE ROW LEVEL SECURITY;
ALTER TABLE conversations NO FORCE ROW LEVEL SECURITY;
ALTER TABLE conversations DISABLE ROW LEVEL SECURITY;
DROP TRIGGER IF EXISTS conversation_turns_owner ON conversation_turns;
DROP TRIGGER IF EXISTS conversation_context_owner ON conversation_context;
DROP TRIGGER IF EXISTS context_requests_owner ON context_requests;
DROP TRIGGER IF EXISTS supplied_context_items_owner ON supplied_context_items;
DROP FUNCTION IF EXISTS regintel_conversation_owner();
ALTER TABLE conversation_turns DROP COLUMN IF EXISTS owner_id;
ALTER TABLE conversation_context DROP COLUMN IF EXISTS owner_id;
ALTER TABLE context_requests DROP COLUMN IF EXISTS owner_id;
ALTER TABLE supplied_context_items DROP COLUMN IF EXISTS owner_id;
DROP FUNCTION IF EXISTS regintel_scope_owner();
DROP FUNCTION IF EXISTS regintel_scope_tenant();
