package memory_test

import (
	"testing"
	"time"

	"regintel/shared/graph"
	"regintel/shared/graph/graphtest"
	graphmem "regintel/shared/graph/memory"
)

func TestConformance(t *testing.T) {
	graphtest.Run(t, func(t testing.TB) graph.Store {
		s, err := graphmem.NewSeeded(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
