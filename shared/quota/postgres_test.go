package quota_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"regintel/shared/pgpool/pgtest"
	"regintel/shared/quota"
)

// TestPostgresSharesOneCountAcrossInstances: two resolver instances (two
// stores on the runtime role, under row-level security) taking units of
// one tenant at once are granted exactly the limit between them; another
// tenant and the next UTC day start from zero.
func TestPostgresSharesOneCountAcrossInstances(t *testing.T) {
	_, runtime := pgtest.NewRuntimePools(t, 8)
	ctx := context.Background()
	instances := []*quota.Quota{
		quota.New(quota.NewPostgres(runtime), quota.DefaultLimits()),
		quota.New(quota.NewPostgres(runtime), quota.DefaultLimits()),
	}
	tenant, other := uuid.NewString(), uuid.NewString()
	day := time.Date(2026, 3, 2, 23, 30, 0, 0, time.UTC)
	var granted atomic.Int64
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			ok, err := instances[i%2].Take(ctx, tenant, quota.NewNodes, day)
			if err != nil {
				t.Error(err)
			}
			if ok {
				granted.Add(1)
			}
		})
	}
	wg.Wait()
	if granted.Load() != quota.DefaultNewNodesPerDay {
		t.Fatalf("%d new nodes granted across instances, want %d", granted.Load(), quota.DefaultNewNodesPerDay)
	}
	for _, tc := range []struct {
		name   string
		tenant string
		c      quota.Counter
		at     time.Time
	}{
		{"another tenant", other, quota.NewNodes, day},
		{"another counter", tenant, quota.EnrichmentJobs, day},
		{"the next UTC day", tenant, quota.NewNodes, day.Add(time.Hour)},
		{"a message without a tenant", "", quota.NewNodes, day},
	} {
		if ok, err := instances[0].Take(ctx, tc.tenant, tc.c, tc.at); err != nil || !ok {
			t.Errorf("%s: refused (%v)", tc.name, err)
		}
	}
}
