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
// schema's tables. Only the master user can do this, which is why the
// migrate function is the one that signs in with the master secret.
func EnsureAppRole(ctx context.Context, pool *pgxpool.Pool, role string) error {
	ident := pgx.Identifier{role}.Sanitize()
	lit := "'" + role + "'"
	if !roleName.MatchString(role) {
		return fmt.Errorf("migrate: application role name must match %s", roleName)
	}
	statements := []string{
		// DO blocks cannot take parameters; the name is quoted as an identifier and validated above.
		fmt.Sprintf(`DO $$ BEGIN
			IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = %s) THEN CREATE ROLE %s LOGIN; END IF;
			IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'rds_iam') THEN EXECUTE 'GRANT rds_iam TO ' || quote_ident(%s); END IF;
		END $$`, lit, ident, lit),
		fmt.Sprintf(`GRANT USAGE ON SCHEMA public TO %s`, ident),
		fmt.Sprintf(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO %s`, ident),
		fmt.Sprintf(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO %s`, ident),
		fmt.Sprintf(`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO %s`, ident),
		fmt.Sprintf(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO %s`, ident),
	}
	for _, s := range statements {
		if _, err := pool.Exec(ctx, s); err != nil {
			return fmt.Errorf("migrate: grant the application role: %w", err)
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
