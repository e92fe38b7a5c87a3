package bolt

import (
	"context"
	"fmt"
	"testing"
	"time"

	"regintel/shared/concept"
	"regintel/shared/graph"
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

// BenchmarkGroundAsOf measures one turn's grounding read for a concept
// with four rate series, once with one undated value per series and once
// with four dated values per series (a history of changes), as ratios to a
// trivial RETURN 1 round trip measured in the same run.
func BenchmarkGroundAsOf(b *testing.B) {
	s := openTestStore(b)
	ctx := context.Background()
	jur := uniqueJurisdiction()
	undated := writeSeries(b, s, testConcept(jur, "UNDATED", "Undated Levy"), 1)
	dated := writeSeries(b, s, testConcept(jur, "DATED", "Dated Levy"), 4)
	asOf := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	ground := func(id string) func() error {
		return func() error {
			_, err := s.Ground(ctx, graph.GroundingQuery{ActiveIDs: []string{id}, AsOf: asOf})
			return err
		}
	}
	ping := func() error { return s.Ping(ctx) }
	// Warm up, then interleave the three so drift on a shared machine
	// weighs on each alike.
	for _, f := range []func() error{ping, ground(undated), ground(dated)} {
		meanOf(b, 50, f)
	}
	var pingMean, undatedMean, datedMean time.Duration
	for range 4 {
		pingMean += meanOf(b, 50, ping)
		undatedMean += meanOf(b, 50, ground(undated))
		datedMean += meanOf(b, 50, ground(dated))
	}
	for b.Loop() {
		if err := ground(dated)(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(undatedMean)/float64(pingMean), "undated/return1")
	b.ReportMetric(float64(datedMean)/float64(pingMean), "history/return1")
	b.ReportMetric(float64(datedMean)/float64(undatedMean), "history/undated")
}

// writeSeries gives the concept four rate series of perSeries yearly values
// each (undated when perSeries is 1) and returns its id.
func writeSeries(b *testing.B, s *Store, c concept.Concept, perSeries int) string {
	b.Helper()
	ctx := context.Background()
	if err := s.UpsertConcepts(ctx, []concept.Concept{c}, graph.ProvenanceOfficial, time.Now()); err != nil {
		b.Fatal(err)
	}
	var nodes []graph.NodeWrite
	var edges []graph.EdgeWrite
	for band := range 4 {
		series := fmt.Sprintf("%s:RATE:BAND%d", c.ID, band)
		for year := range perSeries {
			props := map[string]any{"series": series, "percent": float64(band + year), graph.ProvenanceKey: "official"}
			id := series + ":UNDATED"
			if perSeries > 1 {
				from := fmt.Sprintf("%d-01-01", 2022+year)
				props["valid_from"], id = from, series+":"+from
				if year < perSeries-1 {
					props["valid_to"] = fmt.Sprintf("%d-12-31", 2022+year)
				}
			}
			nodes = append(nodes, graph.NodeWrite{Label: "Rate", ID: id, Props: props})
			edges = append(edges, graph.EdgeWrite{FromID: c.ID, Type: "HAS_RATE", ToID: id})
		}
	}
	if err := s.WriteNodesAndEdges(ctx, nodes, edges, time.Now()); err != nil {
		b.Fatal(err)
	}
	return c.ID
}

// meanOf runs f n times and returns its mean duration.
func meanOf(b *testing.B, n int, f func() error) time.Duration {
	b.Helper()
	start := time.Now()
	for range n {
		if err := f(); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start) / time.Duration(n)
}
