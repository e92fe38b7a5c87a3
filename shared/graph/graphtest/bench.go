package graphtest

import (
	"context"
	"strconv"
	"testing"
	"time"

	"regintel/shared/concept"
	"regintel/shared/graph"
	"regintel/shared/graph/seeddata"
)

// benchBatch is how many concepts a benchmarked call carries: the size of
// one captured-concepts batch.
const benchBatch = 10

// Bench measures the calls a chat turn and concept capture make, each
// reported per call, against the store newStore returns (holding the seed
// dataset).
func Bench(b *testing.B, newStore NewStore) {
	s := newStore(b)
	ds, err := seeddata.Load()
	if err != nil {
		b.Fatal(err)
	}
	seeded := ds.Concepts[:min(benchBatch, len(ds.Concepts))]
	benches := []struct {
		name string
		run  func(b *testing.B, s graph.Store, seeded []concept.Concept)
	}{
		{"Ground", benchGround},
		{"ResolveConcepts", benchResolveConcepts},
		{"GetNodesByIDs", benchGetNodesByIDs},
		{"UpsertConcepts", benchUpsertConcepts},
	}
	for _, bm := range benches {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			bm.run(b, s, seeded)
		})
	}
}

func benchGround(b *testing.B, s graph.Store, _ []concept.Concept) {
	q := graph.GroundingQuery{Text: "What is the VAT rate on restaurant meals, and when is the return due?", Jurisdictions: []string{"IE"}}
	found, err := s.Ground(context.Background(), q)
	if err != nil || len(found) == 0 {
		b.Fatalf("Ground found %d concepts, %v; the benchmark needs the seed dataset", len(found), err)
	}
	for b.Loop() {
		if _, err := s.Ground(context.Background(), q); err != nil {
			b.Fatal(err)
		}
	}
}

func benchResolveConcepts(b *testing.B, s graph.Store, seeded []concept.Concept) {
	for b.Loop() {
		if _, err := s.ResolveConcepts(context.Background(), seeded); err != nil {
			b.Fatal(err)
		}
	}
}

func benchGetNodesByIDs(b *testing.B, s graph.Store, seeded []concept.Concept) {
	ids := make([]string, len(seeded))
	for i, c := range seeded {
		ids[i] = c.ID
	}
	for b.Loop() {
		nodes, err := s.GetNodesByIDs(context.Background(), ids)
		if err != nil || len(nodes) != len(ids) {
			b.Fatalf("GetNodesByIDs = %d nodes, %v; want %d", len(nodes), err, len(ids))
		}
	}
}

// benchUpsertConcepts upserts batches in a jurisdiction of its own, half of
// each batch new and half already stored, as capture does.
func benchUpsertConcepts(b *testing.B, s graph.Store, _ []concept.Concept) {
	jur := UniqueJurisdiction()
	kinds := make([]string, 0, benchBatch)
	for i := 0; b.Loop(); i++ {
		if len(kinds) == benchBatch {
			kinds = kinds[benchBatch/2:]
		}
		for len(kinds) < benchBatch {
			kinds = append(kinds, "K"+strconv.Itoa(i*benchBatch+len(kinds)))
		}
		batch := make([]concept.Concept, len(kinds))
		for j, kind := range kinds {
			batch[j] = Concept(jur, kind, "Concept "+kind)
		}
		if err := s.UpsertConcepts(context.Background(), batch, graph.ProvenanceOfficial, t0.Add(time.Duration(i)*time.Second)); err != nil {
			b.Fatal(err)
		}
	}
}
