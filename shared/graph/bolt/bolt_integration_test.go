package bolt

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"regintel/shared/concept"
	"regintel/shared/graph"
	"regintel/shared/testenv"
)

var (
	schemaOnce sync.Once
	schemaErr  error
)

// openTestStore connects to the Neo4j test server and applies the schema
// once per test binary (uniqueness constraints make concurrent MERGE safe).
func openTestStore(t testing.TB) *Store {
	t.Helper()
	uri := testenv.Require(t, "TEST_BOLT_URI")
	ctx := context.Background()
	s, err := Open(ctx, Config{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(ctx) })
	schemaOnce.Do(func() { schemaErr = s.ApplySchema(ctx) })
	if schemaErr != nil {
		t.Fatal(schemaErr)
	}
	return s
}

// uniqueJurisdiction isolates each test's concepts (ids are DOMAIN:JURISDICTION:KIND).
func uniqueJurisdiction() string {
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	return "T" + strings.ToUpper(hex.EncodeToString(b))
}

func testConcept(jur, kind, pref string, alt ...string) concept.Concept {
	return concept.Normalize(concept.Concept{
		Domain: "TAX", Jurisdiction: jur, Kind: kind, PrefLabel: pref, AltLabels: alt,
		Definition: pref + " definition", SourceURLs: []string{"https://www.revenue.ie/en/" + kind},
	})
}

// cypher runs a raw statement for checks the store's API does not expose.
func cypher(t testing.TB, s *Store, query string, params map[string]any) []*neo4j.Record {
	t.Helper()
	res, err := neo4j.ExecuteQuery(context.Background(), s.driver, query, params, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return res.Records
}

func count(t testing.TB, s *Store, query string, params map[string]any) int64 {
	t.Helper()
	recs := cypher(t, s, query, params)
	n, _, err := neo4j.GetRecordValue[int64](recs[0], "n")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// The behaviour shared with graph/memory is tested by graphtest (see
// conformance_integration_test.go); these tests check what only the server
// shows: edges and nodes counted in Cypher, transactions, schema.

func TestIntegrationAliasEdgesAndOneTransactionPerBatch(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	jur := uniqueJurisdiction()
	a := testConcept(jur, "VAT", "Value-Added Tax", "VAT "+jur)
	if err := s.UpsertConcepts(ctx, []concept.Concept{a}, graph.ProvenanceOfficial, t0); err != nil {
		t.Fatal(err)
	}
	aliases := count(t, s, "MATCH (:Concept {id: $id})-[:HAS_ALT_LABEL]->(l:Label) RETURN count(l) AS n", map[string]any{"id": a.ID})
	if aliases != 2 { // the pref label and the one alt label
		t.Errorf("HAS_ALT_LABEL edges = %d, want 2", aliases)
	}
	batch := make([]concept.Concept, 50)
	for i := range batch {
		batch[i] = testConcept(jur, fmt.Sprintf("K%02d", i), fmt.Sprintf("Concept %d", i), fmt.Sprintf("alias %d", i))
	}
	before := s.Stats().WriteTransactions
	if err := s.UpsertConcepts(ctx, batch, graph.ProvenanceOfficial, t0); err != nil {
		t.Fatal(err)
	}
	if tx := s.Stats().WriteTransactions - before; tx != 1 {
		t.Errorf("%d write transactions for one batch, want 1", tx)
	}
}

func TestIntegrationConcurrentUpsertsMakeOneNode(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	jur := uniqueJurisdiction()
	const writers = 20
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := testConcept(jur, "PRSI", "Pay Related Social Insurance", fmt.Sprintf("alias %d %s", i, jur))
			errs <- s.UpsertConcepts(ctx, []concept.Concept{c}, graph.ProvenanceOfficial, t0.Add(time.Duration(i)*time.Second))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	id := concept.CanonicalID("TAX", jur, "PRSI")
	if n := count(t, s, "MATCH (c:Concept {id: $id}) RETURN count(c) AS n", map[string]any{"id": id}); n != 1 {
		t.Fatalf("%d nodes for %s, want 1", n, id)
	}
	if n := count(t, s, "MATCH (:Concept {id: $id})-[r:HAS_ALT_LABEL]->() RETURN count(r) AS n", map[string]any{"id": id}); n != writers+1 {
		t.Errorf("%d HAS_ALT_LABEL edges, want %d", n, writers+1)
	}
}

func TestIntegrationMarkEnrichmentLeavesNoLock(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	c := testConcept(uniqueJurisdiction(), "VRT", "Vehicle Registration Tax")
	if err := s.UpsertConcepts(ctx, []concept.Concept{c}, graph.ProvenanceOfficial, t0); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.MarkEnrichmentRequested(ctx, c.ID, t0, t0.Add(-time.Hour)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := count(t, s, "MATCH (c:Concept {id: $id}) WHERE c._lock IS NOT NULL RETURN count(c) AS n", map[string]any{"id": c.ID}); n != 0 {
		t.Error("lock property left on the node")
	}
}

func TestIntegrationSchemaTwiceAndUniqueness(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	if err := s.ApplySchema(ctx); err != nil {
		t.Fatalf("schema applied again: %v", err)
	}
	if err := s.ApplySchema(ctx); err != nil {
		t.Fatalf("schema applied a third time: %v", err)
	}
	if s.Dialect() != Neo4j {
		t.Errorf("dialect = %q, want neo4j for the test server", s.Dialect())
	}
	n := count(t, s, "SHOW CONSTRAINTS YIELD name WHERE name STARTS WITH 'regintel_' RETURN count(*) AS n", nil)
	if n != int64(len(graph.NodeLabels)) {
		t.Errorf("%d constraints, want %d", n, len(graph.NodeLabels))
	}
	id := "TAX:" + uniqueJurisdiction() + ":DUP"
	_, err := neo4j.ExecuteQuery(ctx, s.driver, "CREATE (:Concept {id: $id}), (:Concept {id: $id})", map[string]any{"id": id}, neo4j.EagerResultTransformer)
	if err == nil {
		t.Error("two Concept nodes with one id were accepted")
	}
}

func TestIntegrationPing(t *testing.T) {
	s := openTestStore(t)
	if err := s.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestIntegrationWriteNodesAndEdgesOneTransactionPerCall(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	c := testConcept(uniqueJurisdiction(), "VAT", "Value-Added Tax")
	if err := s.UpsertConcepts(ctx, []concept.Concept{c}, graph.ProvenanceOfficial, t0); err != nil {
		t.Fatal(err)
	}
	rateID := c.ID + ":RATE:STANDARD"
	before := s.Stats().WriteTransactions
	nodes := []graph.NodeWrite{{Label: "Rate", ID: rateID, Props: map[string]any{"percent": 23.0}}}
	edges := []graph.EdgeWrite{{FromID: c.ID, Type: "HAS_RATE", ToID: rateID}}
	for _, at := range []time.Time{t0, t0.Add(time.Hour)} {
		if err := s.WriteNodesAndEdges(ctx, nodes, edges, at); err != nil {
			t.Fatal(err)
		}
	}
	if tx := s.Stats().WriteTransactions - before; tx != 2 {
		t.Errorf("%d write transactions for two calls, want 2", tx)
	}
	if n := count(t, s, "MATCH (:Concept {id: $id})-[r:HAS_RATE]->(:Rate) RETURN count(r) AS n", map[string]any{"id": c.ID}); n != 1 {
		t.Errorf("%d HAS_RATE edges, want 1", n)
	}
}

// TestIntegrationGroundAndResolveReadOnce: each is one read transaction,
// whatever the number of concepts, and neither writes.
func TestIntegrationGroundAndResolveReadOnce(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	jur := uniqueJurisdiction()
	a, b := testConcept(jur, "VAT", "Value-Added Tax", "VAT"), testConcept(jur, "VRT", "Vehicle Registration Tax", "VRT")
	if err := s.UpsertConcepts(ctx, []concept.Concept{a, b}, graph.ProvenanceOfficial, t0); err != nil {
		t.Fatal(err)
	}
	before := s.Stats()
	got, err := s.Ground(ctx, graph.GroundingQuery{ActiveIDs: []string{a.ID}, Text: "VRT and VAT", Jurisdictions: []string{jur}})
	if err != nil || len(got) != 2 {
		t.Fatalf("ground: %d concepts, %v", len(got), err)
	}
	ids, err := s.ResolveConcepts(ctx, []concept.Concept{
		{Domain: "MOTOR", Jurisdiction: jur, Kind: "VRT", PrefLabel: "VRT"}, {Domain: "TAX", Jurisdiction: jur, Kind: "VAT", PrefLabel: "x"},
	})
	if err != nil || len(ids) != 2 || ids[0] != b.ID || ids[1] != a.ID {
		t.Fatalf("resolve: %v, %v", ids, err)
	}
	after := s.Stats()
	if reads := after.ReadTransactions - before.ReadTransactions; reads != 2 || after.WriteTransactions != before.WriteTransactions {
		t.Errorf("%d read and %d write transactions, want 2 reads (one each) and no write", reads, after.WriteTransactions-before.WriteTransactions)
	}
}

// TestIntegrationGroundAsOfReadsOnce: a dated history and its neighbours
// come back in the same one read transaction.
func TestIntegrationGroundAsOfReadsOnce(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	c := testConcept(uniqueJurisdiction(), "USC", "Universal Social Charge", "USC")
	if err := s.UpsertConcepts(ctx, []concept.Concept{c}, graph.ProvenanceOfficial, t0); err != nil {
		t.Fatal(err)
	}
	series := c.ID + ":RATE:BAND3"
	var nodes []graph.NodeWrite
	var edges []graph.EdgeWrite
	for _, v := range []struct {
		from, to string
		percent  float64
	}{{"2023-01-01", "2023-12-31", 4.5}, {"2024-01-01", "2024-12-31", 4}, {"2025-01-01", "", 3}} {
		props := map[string]any{"series": series, "valid_from": v.from, "percent": v.percent, graph.ProvenanceKey: "official"}
		if v.to != "" {
			props["valid_to"] = v.to
		}
		nodes = append(nodes, graph.NodeWrite{Label: "Rate", ID: series + ":" + v.from, Props: props})
		edges = append(edges, graph.EdgeWrite{FromID: c.ID, Type: "HAS_RATE", ToID: series + ":" + v.from})
	}
	if err := s.WriteNodesAndEdges(ctx, nodes, edges, t0); err != nil {
		t.Fatal(err)
	}
	before := s.Stats()
	got, err := s.Ground(ctx, graph.GroundingQuery{ActiveIDs: []string{c.ID}, AsOf: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil || len(got) != 1 {
		t.Fatalf("ground: %v, %v", got, err)
	}
	var facts []string
	for _, f := range got[0].Facts {
		facts = append(facts, fmt.Sprintf("%v:%v", f.ValidFrom, f.Neighbour))
	}
	if want := []string{"2024-01-01:false", "2023-01-01:true", "2025-01-01:true"}; !slices.Equal(facts, want) {
		t.Errorf("facts %v, want %v", facts, want)
	}
	if reads := s.Stats().ReadTransactions - before.ReadTransactions; reads != 1 {
		t.Errorf("%d read transactions, want 1", reads)
	}
}
