package quota

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Postgres is a Store in the tenant_graph_quota table (migration 00041),
// one count shared by every resolver instance. Each unit is one statement
// under the tenant's row-level security scope.
type Postgres struct{ pool *pgxpool.Pool }

// NewPostgres returns a store on pool (the runtime role's).
func NewPostgres(pool *pgxpool.Pool) *Postgres { return &Postgres{pool: pool} }

// take counts one unit unless the row is at the limit; no row comes back
// when it is.
const take = `INSERT INTO tenant_graph_quota AS q (tenant_id, day, counter, used) VALUES ($1, $2, $3, 1)
ON CONFLICT (tenant_id, day, counter) DO UPDATE SET used = q.used + 1 WHERE q.used < $4
RETURNING used`

// Take implements Store. A tenant id that is not a UUID (a message
// without one) counts in the nil UUID's row, which such messages share.
func (p *Postgres) Take(ctx context.Context, tenant string, c Counter, at time.Time, limit int) (bool, error) {
	id, err := uuid.Parse(tenant)
	if err != nil {
		id = uuid.Nil
	}
	day, err := time.Parse(time.DateOnly, Day(at))
	if err != nil {
		return false, err
	}
	tx, err := p.pool.Begin(ctx)
	if err != nil {
		return false, fmt.Errorf("quota: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SELECT set_config('regintel.tenant_id', $1, true)`, id.String()); err != nil {
		return false, fmt.Errorf("quota: scope: %w", err)
	}
	var used int
	err = tx.QueryRow(ctx, take, id, day, string(c), limit).Scan(&used)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, tx.Commit(ctx)
	}
	if err != nil {
		return false, fmt.Errorf("quota: count %s: %w", c, err)
	}
	return true, tx.Commit(ctx)
}
