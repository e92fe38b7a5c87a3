package retention_test

import (
	"context"
	"testing"
	"time"

	"regintel/shared/pgpool/pgtest"
	"regintel/shared/retention"
)

// Under row-level security the sweep works across tenants only as its own
// role: the runtime role, without a tenant scope, sweeps nothing.
func TestSweepRunsAsItsOwnRole(t *testing.T) {
	ctx := context.Background()
	owner, runtime := pgtest.NewRuntimePools(t, 2)
	long := time.Now().Add(-90 * 24 * time.Hour)
	seedGroup(t, owner, 2, long, long, long)
	seedGroup(t, owner, 3, long, long, long)

	if counts, err := retention.Sweep(ctx, runtime, retention.Config{}); err != nil || counts != (retention.Counts{}) {
		t.Errorf("the runtime role swept %+v (%v), want nothing", counts, err)
	}

	sweeper := sweepRolePool(t, owner)
	if err := retention.CheckRole(ctx, runtime); err != retention.ErrNotSweepRole {
		t.Errorf("CheckRole(runtime role) = %v, want ErrNotSweepRole", err)
	}
	if err := retention.CheckRole(ctx, sweeper); err != nil {
		t.Errorf("CheckRole(sweep role) = %v", err)
	}
	if n, err := retention.ExpiredRemaining(ctx, sweeper, retention.Config{}); err != nil || n != 15 {
		t.Errorf("expired rows before the sweep: %d (%v), want 5 contexts + 10 items", n, err)
	}
	counts, err := retention.Sweep(ctx, sweeper, retention.Config{})
	if n, err := retention.ExpiredRemaining(ctx, sweeper, retention.Config{}); err != nil || n != 0 {
		t.Errorf("expired rows after the sweep: %d (%v), want 0", n, err)
	}
	want := retention.Counts{ContextsDeleted: 5, SuppliedItemsDeleted: 10, RequestsExpired: 5}
	if err != nil || counts != want {
		t.Errorf("the sweep role swept %+v (%v), want %+v", counts, err, want)
	}
}
