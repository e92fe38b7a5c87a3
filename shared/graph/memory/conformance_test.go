package memory_test

import (
	"testing"
	"time"

	"regintel/shared/graph"
	"regintel/shared/graph/graphtest"
	graphmem "regintel/shared/graph/memory"
)

func TestConformance(t *testing.T) { graphtest.Run(t, newSeeded) }

func BenchmarkConformance(b *testing.B) { graphtest.Bench(b, newSeeded) }

func newSeeded(t testing.TB) graph.Store {
	s, err := graphmem.NewSeeded(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return s
}
