// Package dbsetup is the logic of the migrate function: apply the embedded
// Postgres migrations on demand. At deploy the migrate step (a custom
// resource) invokes it after the database is ready and fails the deploy
// when it returns an error.
package dbsetup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"regintel/shared/pgpool"
)

// Sign-in retries: on the first deploy the master secret's rotation may
// change the password between the read and the sign-in, so a refused
// password (SQLSTATE 28P01) is retried with the secret read again.
const (
	defaultSignInAttempts = 6
	defaultSignInWait     = 5 * time.Second
)

// Handler applies the migrations on every invocation. It implements the
// aws-lambda-go Handler interface directly, so any payload is accepted
// (a Trigger's event, a sam local sample, an empty invoke): its content
// does not matter and is neither parsed nor logged.
type Handler struct {
	Database pgpool.Config
	// SignIn, when set, returns the database configuration with fresh
	// credentials (the master secret read again); it is called before
	// each sign-in attempt, and Database is then ignored.
	SignIn func(ctx context.Context) (pgpool.Config, error)
	// SignInAttempts bounds the attempts when the password is refused
	// (default 6), SignInWait is the pause after the first refusal, doubled
	// after each (default 5s).
	SignInAttempts int
	SignInWait     time.Duration
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
// is returned as the invocation's error, which the migrate step turns into a
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
func (h *Handler) Run(ctx context.Context) (MigrationOutcome, error) {
	pool, err := h.connect(ctx)
	if err != nil {
		return MigrationOutcome{}, err
	}
	defer pool.Close()
	outcome, err := ApplyMigrations(ctx, pool)
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

// connect signs in, reading the credentials again and retrying (bounded)
// while the server refuses the password.
func (h *Handler) connect(ctx context.Context) (*pgxpool.Pool, error) {
	attempts, wait := h.SignInAttempts, h.SignInWait
	if attempts <= 0 {
		attempts = defaultSignInAttempts
	}
	if wait <= 0 {
		wait = defaultSignInWait
	}
	for attempt := 1; ; attempt++ {
		cfg := h.Database
		if h.SignIn != nil {
			var err error
			if cfg, err = h.SignIn(ctx); err != nil {
				return nil, fmt.Errorf("migrate: read the database credentials: %w", err)
			}
		}
		pool, err := pgpool.NewPool(ctx, cfg)
		if err != nil {
			return nil, err
		}
		err = pool.Ping(ctx)
		if err == nil {
			return pool, nil
		}
		pool.Close()
		if !passwordRefused(err) || attempt >= attempts {
			return nil, fmt.Errorf("migrate: database unreachable after %d attempt(s): %w", attempt, err)
		}
		slog.Warn("migrate: password refused, reading the secret again", "attempt", attempt, "wait", wait.String())
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// passwordRefused reports SQLSTATE 28P01 (invalid_password).
func passwordRefused(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "28P01"
}
