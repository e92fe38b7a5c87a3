package enrich_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"regintel/shared/concept"
	"regintel/shared/enrich"
	"regintel/shared/enrich/enrichtest"
	"regintel/shared/graph"
	"regintel/shared/graph/bolt/bolttest"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/graph/write"
	"regintel/shared/llm/llmtest"
	"regintel/shared/llm/openai"
	"regintel/shared/queue"
)

// BenchmarkEnrichJobs measures whole jobs (two sources: an HTML page and a
// PDF; one extraction call; one guarded write) against the local site and
// a zero-delay fake LLM: jobs per minute and the share of job time in each
// phase.
func BenchmarkEnrichJobs(b *testing.B) {
	b.Run("memory", func(b *testing.B) { benchmarkJobs(b, graphmem.New()) })
	b.Run("neo4j", func(b *testing.B) {
		// Opening the store logs to the default logger, which would split the
		// benchmark's result line.
		defer slog.SetDefault(slog.Default())
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
		benchmarkJobs(b, bolttest.Open(b))
	})
}

func benchmarkJobs(b *testing.B, s store) {
	ctx := context.Background()
	jur := uniqueJurisdiction()
	site := enrichtest.NewSite(b)
	fake := llmtest.NewServer(b)
	fake.SetResponder(enrichtest.Responder())
	catalog := site.Catalog(b, jur)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	writes := write.NewService(s, write.WithLogger(quiet), write.WithSources(catalog))
	h, err := enrich.New(enrich.Deps{
		Writes: writes, Sources: catalog, Fetcher: site.Fetcher(catalog), Extractor: enrichtest.Extractor(),
		Provider: openai.NewResponses(openai.Config{APIKey: "test", BaseURL: fake.BaseURL()}), Log: quiet,
	}, enrich.Config{})
	if err != nil {
		b.Fatal(err)
	}
	// One concept per job, so no job finds its sources already processed.
	jobs := make([]queue.EnrichmentRequested, b.N)
	concepts := make([]concept.Concept, b.N)
	for i := range jobs {
		concepts[i] = concept.Normalize(concept.Concept{Domain: "TAX", Jurisdiction: jur, Kind: fmt.Sprintf("BENCH_%d", i), PrefLabel: fmt.Sprintf("Bench %d", i)})
		jobs[i] = queue.EnrichmentRequested{ConceptID: concepts[i].ID, Domain: "TAX", Kind: concepts[i].Kind, Jurisdiction: jur}
	}
	if _, err := writes.ResolveConcepts(ctx, concepts, graph.ProvenanceOfficial); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		if res, err := h.Enrich(ctx, jobs[i]); err != nil || res.Outcome != enrich.OutcomeEnriched {
			b.Fatalf("job %d: %+v %v", i, res, err)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	st := h.Stats()
	b.ReportMetric(float64(b.N)/elapsed.Minutes(), "jobs/min")
	for _, p := range enrich.Phases {
		b.ReportMetric(100*float64(st.Timings[p])/float64(st.Total), "%"+string(p))
	}
}
