package dbsetup

import (
	"context"
	"fmt"
	"net/url"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"regintel/shared/pgpool"
)

var roleName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// EnsureAppRole creates the runtime functions' database role when missing
// and grants it what they need: LOGIN, rds_iam (on Aurora, so it signs in
// with IAM tokens and never holds a password) and data access to the
// schema's tables. It owns no table and cannot bypass row-level security,
// so every query it makes sees one tenant and owner. Only the master user
// can do this, which is why the migrate function is the one that signs in
// with the master secret.
func EnsureAppRole(ctx context.Context, pool *pgxpool.Pool, role string) error {
	ident := pgx.Identifier{role}.Sanitize()
	return ensureRole(ctx, pool, role,
		fmt.Sprintf(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO %s`, ident),
		fmt.Sprintf(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO %s`, ident),
		fmt.Sprintf(`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO %s`, ident),
		fmt.Sprintf(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO %s`, ident),
		// The migration ledger is the migration role's alone (migrations
		// 00018, 00021): the runtime reads it, for readiness, and no more.
		fmt.Sprintf(`REVOKE ALL ON goose_db_version FROM %s`, ident),
		fmt.Sprintf(`GRANT SELECT ON goose_db_version TO %s`, ident),
	)
}

// EnsureSweepRole creates the retention sweep's role: a member of
// regintel_retention (migrations/00010), whose policies let it see every
// tenant's rows, with only what the sweep does: read conversations, delete
// idle context, supplied items and recorded streams and the lapsed places
// of stream followers, expire context requests.
func EnsureSweepRole(ctx context.Context, pool *pgxpool.Pool, role string) error {
	ident := pgx.Identifier{role}.Sanitize()
	return ensureRole(ctx, pool, role,
		fmt.Sprintf(`GRANT regintel_retention TO %s`, ident),
		// Row locks (FOR SHARE, FOR UPDATE) need an UPDATE grant.
		fmt.Sprintf(`GRANT SELECT, UPDATE (updated_at) ON conversations TO %s`, ident),
		fmt.Sprintf(`GRANT SELECT, UPDATE, DELETE ON conversation_context, supplied_context_items TO %s`, ident),
		fmt.Sprintf(`GRANT SELECT, UPDATE ON context_requests TO %s`, ident),
		fmt.Sprintf(`GRANT SELECT, UPDATE, DELETE ON turn_streams, turn_stream_events, turn_stream_followers TO %s`, ident),
		fmt.Sprintf(`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO %s`, ident),
		// Granted by earlier versions; the ledger is the migration role's.
		fmt.Sprintf(`REVOKE ALL ON goose_db_version FROM %s`, ident),
	)
}

// ensureRole creates a login role when missing (with rds_iam on Aurora),
// lets it use the schema and runs grants.
func ensureRole(ctx context.Context, pool *pgxpool.Pool, role string, grants ...string) error {
	if !roleName.MatchString(role) {
		return fmt.Errorf("migrate: role name must match %s", roleName)
	}
	ident := pgx.Identifier{role}.Sanitize()
	lit := "'" + role + "'"
	statements := append([]string{
		// DO blocks cannot take parameters; the name is quoted as an identifier and validated above.
		fmt.Sprintf(`DO $$ BEGIN
			IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = %s) THEN CREATE ROLE %s LOGIN; END IF;
			IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'rds_iam') THEN EXECUTE 'GRANT rds_iam TO ' || quote_ident(%s); END IF;
		END $$`, lit, ident, lit),
		fmt.Sprintf(`GRANT USAGE ON SCHEMA public TO %s`, ident),
	}, grants...)
	for _, s := range statements {
		if _, err := pool.Exec(ctx, s); err != nil {
			return fmt.Errorf("migrate: grant role %s: %w", role, err)
		}
	}
	return nil
}

// WithPassword returns cfg with user and password set in its URL, for the
// master-secret sign-in of the migrate function (the password never
// reaches the environment or the logs).
func WithPassword(cfg pgpool.Config, user, password string) (pgpool.Config, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return cfg, fmt.Errorf("migrate: database URL does not parse")
	}
	u.User = url.UserPassword(user, password)
	cfg.URL = u.String()
	cfg.IAMAuth = false
	return cfg, nil
}
