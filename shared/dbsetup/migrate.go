// Package dbsetup is the logic of the migrate function: apply the embedded
// Postgres migrations on demand. At deploy a CDK Trigger invokes it after
// the database is ready and fails the deploy when it returns an error.
package dbsetup

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"regintel/shared/pgpool"
)

// Handler applies the migrations on every invocation. It implements the
// aws-lambda-go Handler interface directly, so any payload is accepted
// (a Trigger's event, a sam local sample, an empty invoke): its content
// does not matter and is neither parsed nor logged.
type Handler struct {
	Database pgpool.Config
	// AppRole, when set, is the runtime functions' IAM-authenticated role,
	// created and granted after the migrations (DB_APP_USER).
	AppRole string
	// SweepRole, when set, is the retention sweep's role, created and
	// granted after the migrations (DB_SWEEP_USER).
	SweepRole string
	// GraphSchema, when set, applies the graph's constraints and indexes
	// after Postgres. The graph may not be reachable at deploy time (it is
	// run outside this stack), so its failure is logged, not fatal.
	GraphSchema func(ctx context.Context) error
}

// Invoke runs the migrations and returns the outcome as JSON. Any failure
// is returned as the invocation's error, which a CDK Trigger turns into a
// failed deploy.
func (h *Handler) Invoke(ctx context.Context, _ []byte) ([]byte, error) {
	outcome, err := h.Run(ctx)
	if err != nil {
		slog.Error("migrations failed", "err", err)
		return nil, err
	}
	return json.Marshal(outcome)
}

// Run opens a pool for this invocation only (the function runs once per
// deploy, so holding a connection between invocations buys nothing), applies
// pending migrations and closes the pool.
func (h *Handler) Run(ctx context.Context) (pgpool.MigrationOutcome, error) {
	pool, err := pgpool.NewPool(ctx, h.Database)
	if err != nil {
		return pgpool.MigrationOutcome{}, err
	}
	defer pool.Close()
	if err := pool.Ping(ctx); err != nil {
		return pgpool.MigrationOutcome{}, fmt.Errorf("migrate: database unreachable: %w", err)
	}
	outcome, err := pgpool.ApplyMigrations(ctx, pool)
	if err != nil {
		return outcome, err
	}
	if h.AppRole != "" {
		if err := EnsureAppRole(ctx, pool, h.AppRole); err != nil {
			return outcome, err
		}
	}
	if h.SweepRole != "" {
		if err := EnsureSweepRole(ctx, pool, h.SweepRole); err != nil {
			return outcome, err
		}
	}
	if h.GraphSchema != nil {
		if err := h.GraphSchema(ctx); err != nil {
			slog.Warn("graph schema not applied: the graph is unreachable or refused it; run `make graph-schema` once it is reachable", "err", err)
		} else {
			slog.Info("graph schema applied")
		}
	}
	return outcome, nil
}
