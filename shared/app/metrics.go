package app

import (
	"regintel/shared/chat"
	"regintel/shared/metrics"
)

// turnObserver writes one EMF record per chat turn; nil (no observer) when
// metrics are off.
func turnObserver(m *metrics.Emitter) chat.TurnObserver {
	if m == nil {
		return nil
	}
	return func(s chat.TurnStats) {
		m.Emit(turnRecord(s))
	}
}

func turnRecord(s chat.TurnStats) metrics.Record {
	failed := 0.0
	if s.Status != "ok" && s.Status != "context_required" {
		failed = 1
	}
	record := metrics.Record{
		Metrics: []metrics.Metric{
			{Name: "Turns", Unit: metrics.Count, Value: 1},
			{Name: "TurnsFailed", Unit: metrics.Count, Value: failed},
			{Name: "TimeToFirstByte", Unit: metrics.Milliseconds, Value: metrics.Millis(s.TimeToFirstByte)},
			{Name: "TimeToFirstText", Unit: metrics.Milliseconds, Value: metrics.Millis(s.TimeToFirstText)},
			{Name: "TurnTime", Unit: metrics.Milliseconds, Value: metrics.Millis(s.Duration)},
			{Name: "ModelCalls", Unit: metrics.Count, Value: float64(s.ModelCalls)},
			{Name: "InputTokens", Unit: metrics.Count, Value: float64(s.Usage.InputTokens)},
			{Name: "OutputTokens", Unit: metrics.Count, Value: float64(s.Usage.OutputTokens)},
			{Name: "CachedInputTokens", Unit: metrics.Count, Value: float64(s.Usage.CachedInputTokens)},
			{Name: "ConceptsCaptured", Unit: metrics.Count, Value: float64(s.ConceptsCaptured)},
			{Name: "ConceptsResolved", Unit: metrics.Count, Value: float64(s.ConceptsResolved)},
			{Name: "ConceptsRejected", Unit: metrics.Count, Value: float64(s.ConceptsRejected)},
			{Name: "PublishFailures", Unit: metrics.Count, Value: float64(s.PublishFailures)},
		},
		// Searchable in the logs, not metrics: they would make a series per value.
		Properties: map[string]any{"request_id": s.RequestID, "status": s.Status},
	}
	// A model without a price reports no cost, not a zero one.
	if s.Usage.CostUSD != nil {
		record.Metrics = append(record.Metrics, metrics.Metric{Name: "CostUSD", Unit: metrics.None, Value: *s.Usage.CostUSD})
	}
	return record
}
