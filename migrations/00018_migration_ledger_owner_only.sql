-- The migration ledger (goose_db_version) belongs to the role that runs
-- the migrations. The runtime and sweep roles are granted data access on
-- every table, which included the ledger: a role that can write it can
-- mark a migration applied, and the next run would skip it. Writes by any
-- role that is not (a member of) the ledger's owner are now refused,
-- whatever the grants; the roles keep reading it.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION regintel_migration_ledger_owner_only() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF NOT pg_has_role(current_user,
                       (SELECT c.relowner FROM pg_class c WHERE c.oid = TG_RELID), 'MEMBER') THEN
        RAISE EXCEPTION 'only the migration role may change the migration ledger %', TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

REVOKE ALL ON goose_db_version FROM PUBLIC;
CREATE TRIGGER goose_db_version_owner_only
    BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON goose_db_version
    FOR EACH STATEMENT EXECUTE FUNCTION regintel_migration_ledger_owner_only();

-- +goose Down
DROP TRIGGER IF EXISTS goose_db_version_owner_only ON goose_db_version;
DROP FUNCTION IF EXISTS regintel_migration_ledger_owner_only();
