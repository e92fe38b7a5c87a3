// Package quota bounds what one tenant's turns can make the shared side do
// in a UTC day: how many new shared graph nodes they create and how many
// enrichment jobs they queue. A tenant's model chooses what it captures,
// so without a bound one turn could fill the graph or the enrichment queue.
package quota

import (
	"context"
	"sync"
	"time"
)

// Counter names what is counted.
type Counter string

const (
	// NewNodes counts shared graph nodes a tenant's captures created.
	NewNodes Counter = "new_nodes"
	// EnrichmentJobs counts enrichment jobs a tenant's captures queued.
	EnrichmentJobs Counter = "enrichment_jobs"
)

// Defaults per tenant per UTC day (GRAPH_NEW_NODES_PER_TENANT_DAY,
// ENRICHMENT_JOBS_PER_TENANT_DAY).
const (
	DefaultNewNodesPerDay       = 20
	DefaultEnrichmentJobsPerDay = 50
)

// Limits are the daily limits per tenant; a limit of 0 or less allows
// nothing.
type Limits struct {
	NewNodes       int
	EnrichmentJobs int
}

// DefaultLimits are the defaults.
func DefaultLimits() Limits {
	return Limits{NewNodes: DefaultNewNodesPerDay, EnrichmentJobs: DefaultEnrichmentJobsPerDay}
}

func (l Limits) of(c Counter) int {
	if c == NewNodes {
		return l.NewNodes
	}
	return l.EnrichmentJobs
}

// Store keeps the counts.
type Store interface {
	// Take counts one unit of c for tenant on the UTC day of at, and
	// reports whether it was within limit; a unit beyond it is not counted.
	Take(ctx context.Context, tenant string, c Counter, at time.Time, limit int) (bool, error)
}

// Quota applies limits over a store.
type Quota struct {
	store  Store
	limits Limits
}

// New returns a quota over store.
func New(store Store, limits Limits) *Quota { return &Quota{store: store, limits: limits} }

// Take counts one unit of c for tenant at the time at and reports whether
// the tenant's daily limit allowed it. A nil Quota allows everything.
func (q *Quota) Take(ctx context.Context, tenant string, c Counter, at time.Time) (bool, error) {
	if q == nil {
		return true, nil
	}
	limit := q.limits.of(c)
	if limit <= 0 {
		return false, nil
	}
	return q.store.Take(ctx, tenant, c, at, limit)
}

// Day is the UTC day of t, the period a count belongs to.
func Day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// Memory is a Store in this process's memory: for local runs and tests,
// and for a single process. Counts of days before the latest are dropped.
type Memory struct {
	mu     sync.Mutex
	day    string
	counts map[memoryKey]int
}

type memoryKey struct {
	tenant  string
	counter Counter
}

// NewMemory returns an empty Memory store.
func NewMemory() *Memory { return &Memory{counts: map[memoryKey]int{}} }

// Take implements Store.
func (m *Memory) Take(_ context.Context, tenant string, c Counter, at time.Time, limit int) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	// A call stamped with a day already left behind counts in the latest.
	if day := Day(at); day > m.day {
		m.day, m.counts = day, map[memoryKey]int{}
	}
	k := memoryKey{tenant, c}
	if m.counts[k] >= limit {
		return false, nil
	}
	m.counts[k]++
	return true, nil
}
