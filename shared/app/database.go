package app

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// errNotMigrated is what /readyz logs when the database has no schema.
var errNotMigrated = errors.New("database not migrated: run `make migrate` or invoke the migrate function")

// databaseReady is the /readyz check of the database: it answers, and it
// has been migrated (the conversations table exists).
func databaseReady(pool *pgxpool.Pool) func(context.Context) error {
	return func(ctx context.Context) error {
		var migrated bool
		if err := pool.QueryRow(ctx, `SELECT to_regclass('public.conversations') IS NOT NULL`).Scan(&migrated); err != nil {
			return err
		}
		if !migrated {
			return errNotMigrated
		}
		return nil
	}
}

// warnIfNotMigrated tells a local server started without migrations, at
// start, that the database has no schema yet; its turns would fail.
func warnIfNotMigrated(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	switch err := databaseReady(pool)(ctx); {
	case errors.Is(err, errNotMigrated):
		log.Warn(err.Error())
	case err != nil:
		log.Warn("database unreachable at start", "err", err)
	}
}
