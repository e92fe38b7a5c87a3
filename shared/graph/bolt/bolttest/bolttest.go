// Package bolttest opens the Neo4j test server that scripts/test-servers.sh
// starts (TEST_BOLT_URI) for tests of packages built on the graph store.
package bolttest

import (
	"context"
	"testing"

	"regintel/shared/graph/bolt"
	"regintel/shared/testenv"
)

// Open returns a store on the test server with the schema applied; it
// closes when the test ends.
func Open(tb testing.TB) *bolt.Store {
	tb.Helper()
	uri := testenv.Require(tb, "TEST_BOLT_URI")
	ctx := context.Background()
	s, err := bolt.Open(ctx, bolt.Config{URI: uri})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close(ctx) })
	if err := s.ApplySchema(ctx); err != nil {
		tb.Fatal(err)
	}
	return s
}
