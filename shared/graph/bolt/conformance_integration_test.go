package bolt

import (
	"testing"
	"time"

	"regintel/shared/graph"
	"regintel/shared/graph/graphtest"
)

// TestConformance runs the backend suite against the Neo4j test server,
// with the seed dataset merged in.
func TestConformance(t *testing.T) {
	graphtest.Run(t, func(t testing.TB) graph.Store {
		s := openTestStore(t)
		graphtest.LoadSeed(t, s, time.Now())
		return s
	})
}
