package enrich

import (
	"maps"
	"slices"
	"sync"
	"time"
)

// Phase names one step of a job, for timing.
type Phase string

const (
	PhaseGraphRead  Phase = "graph_read"
	PhaseFetch      Phase = "fetch"
	PhaseExtract    Phase = "extract"
	PhaseLLM        Phase = "llm"
	PhaseGraphWrite Phase = "graph_write"
)

// Phases lists the phases in pipeline order.
var Phases = []Phase{PhaseGraphRead, PhaseFetch, PhaseExtract, PhaseLLM, PhaseGraphWrite}

// Timings is wall time per phase. Fetches run concurrently, so PhaseFetch is
// the wall time of the fetch step, not the sum of requests.
type Timings map[Phase]time.Duration

// Stats is what the handler did since it was created.
type Stats struct {
	Jobs      int
	ByOutcome map[Outcome]int
	Timings   Timings
	Total     time.Duration // wall time of all jobs
}

type statsRecorder struct {
	mu    sync.Mutex
	stats Stats
}

func (r *statsRecorder) record(res Result, total time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stats.ByOutcome == nil {
		r.stats.ByOutcome, r.stats.Timings = map[Outcome]int{}, Timings{}
	}
	r.stats.Jobs++
	r.stats.ByOutcome[res.Outcome]++
	for p, d := range res.Timings {
		r.stats.Timings[p] += d
	}
	r.stats.Total += total
}

func (r *statsRecorder) snapshot() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Stats{Jobs: r.stats.Jobs, ByOutcome: maps.Clone(r.stats.ByOutcome), Timings: maps.Clone(r.stats.Timings), Total: r.stats.Total}
}

// timed runs fn and adds its wall time to t[p].
func (t Timings) timed(p Phase, fn func()) {
	start := time.Now()
	fn()
	t[p] += time.Since(start)
}

func keys[V any](m map[string]V) []string { return slices.Collect(maps.Keys(m)) }

func sortedStrings(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
