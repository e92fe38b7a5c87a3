package bolt

import (
	"context"
	"fmt"
	"regintel/shared/graph"
	"testing"
	"time"

	"regintel/shared/concept"
)

// BenchmarkUpsertConceptsBatchOf10 measures concept resolution as the SQS
// handler does it: batches of 10 concepts, one UpsertConcepts call each. Half
// of each batch is new and half already exists. It reports concepts/s, write
// transactions per batch, and the mean latency of a trivial RETURN 1 round
// trip measured in the same run as the baseline.
func BenchmarkUpsertConceptsBatchOf10(b *testing.B) {
	s := openTestStore(b)
	ctx := context.Background()
	jur := uniqueJurisdiction()

	const pings = 200
	pingStart := time.Now()
	for range pings {
		if err := s.Ping(ctx); err != nil {
			b.Fatal(err)
		}
	}
	pingMean := time.Since(pingStart) / pings

	const batchSize = 10
	makeBatch := func(i int) []concept.Concept {
		batch := make([]concept.Concept, batchSize)
		for j := range batch {
			// j < 5 reuses the previous batch's concepts; j >= 5 are new.
			n := i*5 + j
			batch[j] = testConcept(jur, fmt.Sprintf("K%d", n), fmt.Sprintf("Concept %d", n), fmt.Sprintf("alias %d", n))
		}
		return batch
	}
	txBefore := s.Stats().WriteTransactions
	start := time.Now()
	batches := 0
	for b.Loop() {
		if err := s.UpsertConcepts(ctx, makeBatch(batches), graph.ProvenanceOfficial, time.Now()); err != nil {
			b.Fatal(err)
		}
		batches++
	}
	elapsed := time.Since(start)
	tx := s.Stats().WriteTransactions - txBefore
	b.ReportMetric(float64(batches*batchSize)/elapsed.Seconds(), "concepts/s")
	b.ReportMetric(float64(tx)/float64(batches), "write-tx/batch")
	b.ReportMetric(float64(pingMean.Microseconds()), "return1-µs")
	b.ReportMetric(float64(elapsed.Microseconds())/float64(batches)/float64(pingMean.Microseconds()), "batch/return1")
}
