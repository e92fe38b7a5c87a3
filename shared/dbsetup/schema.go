package dbsetup

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"regintel/migrations"
)

// MigrationOutcome reports what one ApplyMigrations run did.
type MigrationOutcome struct {
	// Applied lists the versions this run applied, in order (empty when the
	// schema was already current).
	Applied []int64 `json:"applied"`
	// Version is the schema version after the run.
	Version int64 `json:"version"`
}

// ApplyMigrations applies the embedded migrations that are not yet applied
// and reports what it did. It lives here, not in pgpool, so that only the
// binaries that migrate (the migrate function, cmd/dev, tests) link goose.
// It is idempotent, and safe when several processes start at once (make dev
// instances, a deploy trigger): goose holds a session-level advisory lock
// for the whole run, so the others wait and then find nothing to do. The
// lock needs one session throughout; behind RDS Proxy that pins the
// migrating connection, which is what a lock requires.
func ApplyMigrations(ctx context.Context, pool *pgxpool.Pool) (MigrationOutcome, error) {
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()

	// Retry the lock every second (rather than goose's five) for up to five
	// minutes: a concurrent migrator usually finishes in well under a second.
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
	if err != nil {
		return MigrationOutcome{}, fmt.Errorf("migrate: %w", err)
	}
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS,
		goose.WithSessionLocker(locker),
		goose.WithDisableGlobalRegistry(true),
	)
	if err != nil {
		return MigrationOutcome{}, fmt.Errorf("migrate: %w", err)
	}
	results, err := provider.Up(ctx)
	outcome := MigrationOutcome{Applied: []int64{}}
	for _, r := range results {
		if r.Error == nil {
			outcome.Applied = append(outcome.Applied, r.Source.Version)
		}
	}
	if err != nil {
		return outcome, fmt.Errorf("migrate: %w", err)
	}
	version, err := provider.GetDBVersion(ctx)
	if err != nil {
		return outcome, fmt.Errorf("migrate: reading the schema version: %w", err)
	}
	outcome.Version = version
	slog.Info("postgres migrations applied", "applied", outcome.Applied, "version", version)
	return outcome, nil
}
