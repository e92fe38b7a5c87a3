package resolver

import (
	"time"

	"regintel/shared/metrics"
)

// batchStats counts what one batch did, for its metrics record.
type batchStats struct {
	started             time.Time
	concepts            int // captured concepts in the batch's valid records
	written             int // distinct nodes written or resolved to
	rejected            int // concepts the write guard rejected
	enrichmentRequested int
	publishFailures     int // failed enrichment publishes (one per batch at most)
	held                int // captures of a kind outside the vocabulary: no node made
	heldRequested       int // enrichment jobs for them
	nodesOverQuota      int // captures left out: their tenant's new nodes for the day were used up
	jobsOverQuota       int // enrichment jobs not queued: their tenant's jobs for the day were used up
}

// emit writes the batch's EMF record.
func (h *Handler) emit(items []*item, st *batchStats) {
	failed := 0
	for _, it := range items {
		if it.err != nil {
			failed++
		}
	}
	h.metrics.Emit(metrics.Record{Metrics: []metrics.Metric{
		{Name: "ResolverBatches", Unit: metrics.Count, Value: 1},
		{Name: "ResolverRecords", Unit: metrics.Count, Value: float64(len(items))},
		{Name: "ResolverRecordsFailed", Unit: metrics.Count, Value: float64(failed)},
		{Name: "ConceptsReceived", Unit: metrics.Count, Value: float64(st.concepts)},
		{Name: "ConceptsWritten", Unit: metrics.Count, Value: float64(st.written)},
		{Name: "ConceptsRejected", Unit: metrics.Count, Value: float64(st.rejected)},
		{Name: "EnrichmentRequested", Unit: metrics.Count, Value: float64(st.enrichmentRequested)},
		{Name: "PublishFailures", Unit: metrics.Count, Value: float64(st.publishFailures)},
		{Name: "ConceptsHeld", Unit: metrics.Count, Value: float64(st.held)},
		{Name: "HeldEnrichmentRequested", Unit: metrics.Count, Value: float64(st.heldRequested)},
		{Name: "NewNodesOverQuota", Unit: metrics.Count, Value: float64(st.nodesOverQuota)},
		{Name: "EnrichmentJobsOverQuota", Unit: metrics.Count, Value: float64(st.jobsOverQuota)},
		{Name: "ResolverBatchTime", Unit: metrics.Milliseconds, Value: metrics.Millis(h.now().Sub(st.started))},
	}})
}
