// Package graphtest is the conformance suite every graph backend passes:
// graph/memory in process and graph/bolt against the Neo4j test server, so
// the two behave the same for every caller.
package graphtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
	"time"

	"regintel/shared/concept"
	"regintel/shared/graph"
	"regintel/shared/graph/seeddata"
	"regintel/shared/jurisdiction"
)

// NewStore returns the store under test holding the seed dataset. It may be
// shared with other tests (the Bolt server is), so every test that writes
// does so in a jurisdiction of its own.
type NewStore func(t testing.TB) graph.Store

// Run runs the whole suite against the stores newStore returns.
func Run(t *testing.T, newStore NewStore) {
	runAll(t, newStore, []subtest{
		{"Ground", runGround},
		{"ResolveConcepts", runResolve},
		{"Concepts", runConcepts},
		{"Enrichment", runEnrichment},
		{"Writes", runWrites},
		{"Changes", runChanges},
		{"ValidTime", runValidTime},
		{"Provenance", runProvenance},
		{"CancelledContextChangesNothing", runCancelledContext},
		{"ExpiredDeadlineChangesNothing", runExpiredDeadline},
	})
}

// LoadSeed merges the embedded seed dataset into s as make dev does: its
// concepts, then its detail nodes and edges.
func LoadSeed(t testing.TB, s graph.Store, now time.Time) {
	t.Helper()
	ds, err := seeddata.Load()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.UpsertConcepts(ctx, ds.Concepts, graph.ProvenanceOfficial, now); err != nil {
		t.Fatal(err)
	}
	nodes, edges := ds.Writes()
	if err := s.WriteNodesAndEdges(ctx, graph.MarkOfficial(nodes), edges, now); err != nil {
		t.Fatal(err)
	}
}

// UniqueJurisdiction isolates a test's concepts in a shared graph (ids are
// DOMAIN:JURISDICTION:KIND).
func UniqueJurisdiction() string {
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	code := "T" + strings.ToUpper(hex.EncodeToString(b))
	jurisdiction.RegisterTestCode(code)
	return code
}

// Concept is a normalised TAX concept of jurisdiction jur.
func Concept(jur, kind, pref string, alt ...string) concept.Concept {
	return concept.Normalize(concept.Concept{
		Domain: "TAX", Jurisdiction: jur, Kind: kind, PrefLabel: pref, AltLabels: alt,
		Definition: pref + " definition", SourceURLs: []string{"https://www.revenue.ie/en/" + kind},
	})
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func upsert(t testing.TB, s graph.Store, now time.Time, cs ...concept.Concept) {
	t.Helper()
	must(t, s.UpsertConcepts(context.Background(), cs, graph.ProvenanceOfficial, now))
}

func getOne(t testing.TB, s graph.Store, id string) graph.Node {
	t.Helper()
	nodes, err := s.GetNodesByIDs(context.Background(), []string{id})
	if err != nil || len(nodes) != 1 {
		t.Fatalf("GetNodesByIDs(%s) = %v, %v", id, nodes, err)
	}
	return nodes[0]
}

func ids(gcs []graph.GroundedConcept) []string {
	out := make([]string, len(gcs))
	for i, gc := range gcs {
		out[i] = gc.Node.ID
	}
	return out
}

// only keeps the ids among want, in the order found: a shared graph may
// hold other tests' concepts.
func only(found []string, want ...string) []string {
	return slices.DeleteFunc(slices.Clone(found), func(id string) bool { return !slices.Contains(want, id) })
}

type subtest struct {
	name string
	run  func(*testing.T, NewStore)
}

func runAll(t *testing.T, newStore NewStore, tests []subtest) {
	for _, st := range tests {
		t.Run(st.name, func(t *testing.T) { st.run(t, newStore) })
	}
}
