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
		{Name: "ResolverBatchTime", Unit: metrics.Milliseconds, Value: metrics.Millis(h.now().Sub(st.started))},
	}})
}
