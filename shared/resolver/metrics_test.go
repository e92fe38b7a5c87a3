package resolver

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"regintel/shared/concept"
	"regintel/shared/metrics"
	"regintel/shared/metrics/metricstest"
)

// Each batch writes one EMF record counting its records, concepts,
// rejections, enrichment jobs and publish failures.
func TestBatchEmitsOneMetricsRecord(t *testing.T) {
	f := newFixture(t)
	var sink metricstest.Sink
	f.h.metrics = metrics.New(&sink, "resolve-concepts", nil)
	vat, vrt := mk("tax", "IE", "VAT", "VAT"), mk("vehicles", "IE", "VRT", "VRT")
	leaky := concept.Normalize(concept.Concept{Domain: "tax", Jurisdiction: "UK", Kind: "Income Tax", PrefLabel: "Income tax",
		Definition: "for NI number AB 12 34 56 C"})
	ev := events.SQSEvent{Records: []events.SQSMessage{record(t, "m1", vat, leaky), record(t, "m2", vrt),
		{MessageId: "bad", Body: "not json"}}}
	if _, err := f.h.HandleSQS(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	f.enrich.err = errors.New("sqs throttled")
	fresh := mk("pensions", "UK", "State Pension", "State Pension")
	_, _ = f.h.HandleSQS(context.Background(), events.SQSEvent{Records: []events.SQSMessage{record(t, "m3", fresh)}})

	recs := sink.Records(t)
	if len(recs) != 2 {
		t.Fatalf("%d records, want one per batch", len(recs))
	}
	want := map[string]float64{"ResolverBatches": 1, "ResolverRecords": 3, "ResolverRecordsFailed": 1, "ConceptsReceived": 3,
		"ConceptsWritten": 2, "ConceptsRejected": 1, "EnrichmentRequested": 2, "PublishFailures": 0}
	for name, v := range want {
		if got := recs[0].Value(name); got != v {
			t.Errorf("first batch %s = %v, want %v", name, got, v)
		}
	}
	if recs[0].Value("Function") != "resolve-concepts" || recs[0].Units["ResolverBatchTime"] != "Milliseconds" {
		t.Errorf("record %v units %v", recs[0].Root, recs[0].Units)
	}
	if got := recs[1].Value("PublishFailures"); got != 1.0 {
		t.Errorf("second batch PublishFailures = %v, want 1", got)
	}
	if got := recs[1].Value("ResolverRecordsFailed"); got != 1.0 {
		t.Errorf("second batch ResolverRecordsFailed = %v, want 1", got)
	}
}
