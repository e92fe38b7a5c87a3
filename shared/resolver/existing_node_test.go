package resolver

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"

	"regintel/shared/concept"
	"regintel/shared/graph"
	"regintel/shared/graph/bolt/bolttest"
	"regintel/shared/graph/graphtest"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/graph/write"
	"regintel/shared/queue"
)

func TestCapturedConceptJoinsTheExistingNodeInMemory(t *testing.T) {
	capturedConceptJoinsTheExistingNode(t, graphmem.New())
}

func TestCapturedConceptJoinsTheExistingNodeOnNeo4j(t *testing.T) {
	capturedConceptJoinsTheExistingNode(t, bolttest.Open(t))
}

// capturedConceptJoinsTheExistingNode: a turn captures VEHICLE_REG:<j>:VRT
// labelled "VRT" while the graph already holds TAX:<j>:VRT under that
// label. The resolver neither creates a twin nor adds the captured names to
// the shared node (a capture shares no text), and asks enrichment for it.
func capturedConceptJoinsTheExistingNode(t *testing.T, store graph.Store) {
	ctx := context.Background()
	jur := graphtest.UniqueJurisdiction()
	quiet := slog.New(slog.NewJSONHandler(io.Discard, nil))
	writes := write.NewService(store, write.WithLogger(quiet))
	existing := graphtest.Concept(jur, "VRT", "Vehicle Registration Tax", "VRT")
	if _, err := writes.ResolveConcepts(ctx, []concept.Concept{existing}, graph.ProvenanceOfficial); err != nil {
		t.Fatal(err)
	}
	jobs := &recordingPublisher{}
	h := New(writes, jobs, WithLogger(quiet))

	captured := concept.Normalize(concept.Concept{Domain: "vehicle reg", Jurisdiction: jur, Kind: "VRT", PrefLabel: "VRT",
		AltLabels: []string{"vehicle tax"}, SourceURLs: []string{"https://www.revenue.ie/en/vrt/index.aspx"}})
	// The chat engine may send the id it resolved the concept to.
	resolvedByProducer := captured
	resolvedByProducer.ID = existing.ID
	resolvedByProducer.AltLabels = []string{"registration tax"}
	for _, c := range []concept.Concept{captured, resolvedByProducer} {
		env, err := queue.NewEnvelope(queue.TypeConceptsCaptured, queue.ConceptsCaptured{Concepts: []concept.Concept{c}})
		if err != nil {
			t.Fatal(err)
		}
		if err := h.HandleEnvelope(ctx, env); err != nil {
			t.Fatal(err)
		}
	}

	nodes, err := store.GetNodesByIDs(ctx, []string{captured.ID, existing.ID})
	if err != nil || len(nodes) != 1 || nodes[0].ID != existing.ID {
		t.Fatalf("graph holds %+v (%v), want %s only: no twin", nodes, err, existing.ID)
	}
	n := nodes[0]
	alt, _ := n.Properties["alt_labels"].([]string)
	if n.PrefLabel != "Vehicle Registration Tax" || n.Properties["domain"] != "TAX" || !slices.Equal(alt, []string{"VRT"}) {
		t.Errorf("existing node after the captures: %+v, want its official names only", n)
	}
	for _, name := range []string{"vehicle tax", "registration tax"} {
		got, err := store.Ground(ctx, graph.GroundingQuery{Text: "what is " + name + "?", Jurisdictions: []string{jur}})
		if err != nil || len(got) != 0 {
			t.Errorf("captured alias %q grounds %v (%v)", name, got, err)
		}
	}
	if st := writes.Stats(); st.Rejected != 0 {
		t.Errorf("%d captures rejected", st.Rejected)
	}
	if got := jobs.conceptIDs(t); !slices.Equal(got, []string{existing.ID}) {
		t.Fatalf("enrichment requested for %v, want %s once", got, existing.ID)
	}
	req, _ := queue.DecodeEnrichmentRequested(jobs.msgs[0])
	if req.Domain != "TAX" || req.Kind != "VRT" || req.Jurisdiction != jur {
		t.Errorf("enrichment job %+v, want the existing node's parts", req)
	}
}
