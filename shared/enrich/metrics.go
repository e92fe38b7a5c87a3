package enrich

import (
	"time"

	"regintel/shared/metrics"
)

// phaseMetrics names each phase's time metric.
var phaseMetrics = map[Phase]string{
	PhaseGraphRead: "EnrichGraphReadTime", PhaseFetch: "EnrichFetchTime", PhaseExtract: "EnrichExtractTime",
	PhaseLLM: "EnrichModelTime", PhaseGraphWrite: "EnrichGraphWriteTime",
}

// emit writes the job's EMF record, by outcome: its counts and the time
// of each phase.
func (h *Handler) emit(res Result, total time.Duration) {
	m := []metrics.Metric{
		{Name: "EnrichmentJobs", Unit: metrics.Count, Value: 1},
		{Name: "EnrichSourcesFetched", Unit: metrics.Count, Value: float64(res.Fetched)},
		{Name: "EnrichFactsKept", Unit: metrics.Count, Value: float64(res.Kept)},
		{Name: "EnrichFactsDropped", Unit: metrics.Count, Value: float64(res.Dropped)},
		{Name: "EnrichRejected", Unit: metrics.Count, Value: float64(res.Rejected)},
		{Name: "EnrichJobTime", Unit: metrics.Milliseconds, Value: metrics.Millis(total)},
	}
	for _, p := range Phases {
		m = append(m, metrics.Metric{Name: phaseMetrics[p], Unit: metrics.Milliseconds, Value: metrics.Millis(res.Timings[p])})
	}
	h.d.Metrics.Emit(metrics.Record{Dimensions: []metrics.Dimension{{Name: "Outcome", Value: string(res.Outcome)}}, Metrics: m})
}
