package bolt

import (
	"context"
	"testing"
	"time"

	"regintel/shared/graph"
	"regintel/shared/graph/graphtest"
)

// TestConformance runs the backend suite against the Neo4j test server,
// with the seed dataset merged in.
func TestConformance(t *testing.T) { graphtest.Run(t, newSeededTestStore) }

// BenchmarkConformance runs the suite's benchmarks, with a RETURN 1 round
// trip measured first as their baseline.
func BenchmarkConformance(b *testing.B) {
	s := openTestStore(b)
	graphtest.LoadSeed(b, s, time.Now())
	b.Run("ReturnOneBaseline", func(b *testing.B) {
		for b.Loop() {
			if err := s.Ping(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
	})
	graphtest.Bench(b, func(testing.TB) graph.Store { return s })
}

func newSeededTestStore(t testing.TB) graph.Store {
	s := openTestStore(t)
	graphtest.LoadSeed(t, s, time.Now())
	return s
}
