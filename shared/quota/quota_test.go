package quota

import (
	"context"
	"testing"
	"time"
)

// TestMemoryStopsAtTheLimitPerTenantAndDay: the 21st unit of a tenant's day
// is refused, another tenant and the next UTC day start from zero.
func TestMemoryStopsAtTheLimitPerTenantAndDay(t *testing.T) {
	ctx := context.Background()
	q := New(NewMemory(), Limits{NewNodes: 20, EnrichmentJobs: 50})
	day := time.Date(2026, 3, 2, 23, 0, 0, 0, time.UTC)
	take := func(tenant string, c Counter, at time.Time) bool {
		ok, err := q.Take(ctx, tenant, c, at)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	for i := range 20 {
		if !take("t1", NewNodes, day) {
			t.Fatalf("unit %d refused", i+1)
		}
	}
	if take("t1", NewNodes, day) {
		t.Fatal("the 21st new node of the day was allowed")
	}
	if !take("t1", EnrichmentJobs, day) || !take("t2", NewNodes, day) {
		t.Fatal("another counter or another tenant shares the exhausted count")
	}
	if !take("t1", NewNodes, day.Add(90*time.Minute)) {
		t.Fatal("the next UTC day did not start from zero")
	}
	if ok, _ := New(NewMemory(), Limits{}).Take(ctx, "t1", NewNodes, day); ok {
		t.Fatal("a zero limit allowed a unit")
	}
	var unlimited *Quota
	if ok, _ := unlimited.Take(ctx, "t1", NewNodes, day); !ok {
		t.Fatal("a nil quota refused")
	}
}
