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

func TestIntegrationUpsertAndReadBack(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	jur := uniqueJurisdiction()
	a := testConcept(jur, "VAT", "Value-Added Tax", "VAT "+jur)
	b := testConcept(jur, "VRT", "Vehicle Registration Tax "+jur)
	if err := s.UpsertConcepts(ctx, []concept.Concept{a, b}, t0); err != nil {
		t.Fatal(err)
	}
	nodes, err := s.GetNodesByIDs(ctx, []string{b.ID, "TAX:" + jur + ":MISSING", a.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 2 || nodes[0].ID != b.ID || nodes[1].ID != a.ID {
		t.Fatalf("got %+v, want [%s %s] in that order", nodes, b.ID, a.ID)
	}
	got := nodes[1]
	if got.PrefLabel != "Value-Added Tax" || got.Jurisdiction != jur || got.Definition != "Value-Added Tax definition" {
		t.Errorf("read back %+v", got)
	}
	if !slices.Equal(got.Labels, []string{"Concept"}) {
		t.Errorf("labels = %v", got.Labels)
	}
	if !got.UpdatedAt.Equal(t0) || got.Properties["created_at"] != graph.Timestamp(t0) {
		t.Errorf("timestamps: updated %v created %v, want %v", got.UpdatedAt, got.Properties["created_at"], t0)
	}
	if urls := got.Properties["source_urls"]; !slices.Equal(urls.([]string), a.SourceURLs) {
		t.Errorf("source_urls = %v", urls)
	}
	aliases := count(t, s, "MATCH (:Concept {id: $id})-[:HAS_ALT_LABEL]->(l:Label) RETURN count(l) AS n", map[string]any{"id": a.ID})
	if aliases != 2 { // the pref label and the one alt label
		t.Errorf("HAS_ALT_LABEL edges = %d, want 2", aliases)
	}
	labelNodes, err := s.GetNodesByIDs(ctx, []string{graph.AltLabelID("vat  " + jur)})
	if err != nil || len(labelNodes) != 1 || labelNodes[0].Properties["text"] != "VAT "+jur {
		t.Errorf("alias node = %+v, %v", labelNodes, err)
	}
}

func TestIntegrationSecondWriteKeepsCreatedAtAndMergesSets(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	jur := uniqueJurisdiction()
	first := testConcept(jur, "USC", "Universal Social Charge", "USC")
	if err := s.UpsertConcepts(ctx, []concept.Concept{first}, t0); err != nil {
		t.Fatal(err)
	}
	second := testConcept(jur, "USC", "universal social charge", "usc", "Universal Charge")
	second.SourceURLs = []string{"https://www.revenue.ie/en/USC", "https://www.gov.ie/usc"}
	second.Definition = "a different definition"
	later := t0.Add(48 * time.Hour)
	if err := s.UpsertConcepts(ctx, []concept.Concept{second}, later); err != nil {
		t.Fatal(err)
	}
	nodes, err := s.GetNodesByIDs(ctx, []string{first.ID})
	if err != nil || len(nodes) != 1 {
		t.Fatalf("%v %v", nodes, err)
	}
	n := nodes[0]
	if n.Properties["created_at"] != graph.Timestamp(t0) {
		t.Errorf("created_at changed: %v", n.Properties["created_at"])
	}
	if !n.UpdatedAt.Equal(later) {
		t.Errorf("updated_at = %v, want %v", n.UpdatedAt, later)
	}
	if n.PrefLabel != "Universal Social Charge" || n.Definition != "Universal Social Charge definition" {
		t.Errorf("first pref label/definition should stick: %q / %q", n.PrefLabel, n.Definition)
	}
	if alt := n.Properties["alt_labels"].([]string); !slices.Equal(alt, []string{"USC", "Universal Charge"}) {
		t.Errorf("alt_labels = %v, want [USC Universal Charge]", alt)
	}
	if urls := n.Properties["source_urls"].([]string); !slices.Equal(urls, []string{"https://www.revenue.ie/en/USC", "https://www.gov.ie/usc"}) {
		t.Errorf("source_urls = %v", urls)
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
			errs <- s.UpsertConcepts(ctx, []concept.Concept{c}, t0.Add(time.Duration(i)*time.Second))
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
	nodes, err := s.GetNodesByIDs(ctx, []string{id})
	if err != nil {
		t.Fatal(err)
	}
	alt := nodes[0].Properties["alt_labels"].([]string)
	for i := range writers {
		if !slices.Contains(alt, fmt.Sprintf("alias %d %s", i, jur)) {
			t.Errorf("alias %d lost; alt_labels = %v", i, alt)
		}
	}
	if len(alt) != writers {
		t.Errorf("%d alt labels, want %d", len(alt), writers)
	}
	if n := count(t, s, "MATCH (:Concept {id: $id})-[r:HAS_ALT_LABEL]->() RETURN count(r) AS n", map[string]any{"id": id}); n != writers+1 {
		t.Errorf("%d HAS_ALT_LABEL edges, want %d", n, writers+1)
	}
}

func TestIntegrationManyConceptsInOneTransaction(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	jur := uniqueJurisdiction()
	batch := make([]concept.Concept, 50)
	ids := make([]string, len(batch))
	for i := range batch {
		batch[i] = testConcept(jur, fmt.Sprintf("K%02d", i), fmt.Sprintf("Concept %d", i), fmt.Sprintf("alias %d", i))
		ids[i] = batch[i].ID
	}
	before := s.Stats().WriteTransactions
	if err := s.UpsertConcepts(ctx, batch, t0); err != nil {
		t.Fatal(err)
	}
	if tx := s.Stats().WriteTransactions - before; tx != 1 {
		t.Errorf("%d write transactions for one batch, want 1", tx)
	}
	nodes, err := s.GetNodesByIDs(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != len(batch) {
		t.Errorf("read back %d of %d", len(nodes), len(batch))
	}
}

func TestIntegrationHasUsefulDetail(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	jur := uniqueJurisdiction()
	c := testConcept(jur, "VAT", "Value-Added Tax")
	other := testConcept(jur, "CGT", "Capital Gains Tax")
	if err := s.UpsertConcepts(ctx, []concept.Concept{c, other}, t0); err != nil {
		t.Fatal(err)
	}
	window := t0.Add(-30 * 24 * time.Hour)
	check := func(id string, since time.Time, want bool) {
		t.Helper()
		got, err := s.HasUsefulDetail(ctx, id, since)
		if err != nil || got != want {
			t.Errorf("HasUsefulDetail(%s, %v) = %v, %v; want %v", id, since, got, err, want)
		}
	}
	check(c.ID, window, false)
	check("TAX:"+jur+":UNKNOWN", window, false)

	cypher(t, s, "MATCH (c:Concept {id: $id}) SET c.last_verified_at = $ts", map[string]any{"id": c.ID, "ts": graph.Timestamp(t0)})
	check(c.ID, window, true)
	check(c.ID, t0.Add(time.Minute), false)

	// A non-detail edge does not count; a rate does.
	cypher(t, s, "MATCH (a:Concept {id: $a}), (b:Concept {id: $b}) MERGE (a)-[:RELATED_TO]->(b)", map[string]any{"a": other.ID, "b": c.ID})
	check(other.ID, window, false)
	cypher(t, s, "MATCH (a:Concept {id: $a}) MERGE (r:Rate {id: $r}) MERGE (a)-[:HAS_RATE]->(r)", map[string]any{"a": other.ID, "r": other.ID + ":RATE"})
	check(other.ID, window, true)
}

func TestIntegrationMarkEnrichmentRequested(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	jur := uniqueJurisdiction()
	c := testConcept(jur, "VRT", "Vehicle Registration Tax")
	if err := s.UpsertConcepts(ctx, []concept.Concept{c}, t0); err != nil {
		t.Fatal(err)
	}
	window := 30 * 24 * time.Hour
	mark := func(now time.Time) bool {
		t.Helper()
		ok, err := s.MarkEnrichmentRequested(ctx, c.ID, now, now.Add(-window))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !mark(t0) {
		t.Error("first request not marked")
	}
	if mark(t0.Add(time.Hour)) {
		t.Error("second request inside the window marked again")
	}
	afterWindow := t0.Add(window + time.Hour)
	if !mark(afterWindow) {
		t.Error("request after the window not marked")
	}
	// Clearing another mark is a no-op; clearing this one re-opens the window.
	if err := s.ClearEnrichmentRequested(ctx, c.ID, t0); err != nil {
		t.Fatal(err)
	}
	if mark(afterWindow.Add(time.Minute)) {
		t.Error("a clear of an older mark removed the current one")
	}
	if err := s.ClearEnrichmentRequested(ctx, c.ID, afterWindow); err != nil {
		t.Fatal(err)
	}
	if !mark(afterWindow.Add(time.Minute)) {
		t.Error("request after clearing the mark not marked")
	}
	if ok, err := s.MarkEnrichmentRequested(ctx, "TAX:"+jur+":MISSING", t0, t0); ok || err != nil {
		t.Errorf("missing concept: %v, %v", ok, err)
	}

	// Concurrent callers: exactly one wins.
	later := t0.Add(10 * window)
	var wins sync.WaitGroup
	results := make(chan bool, 10)
	for range 10 {
		wins.Add(1)
		go func() {
			defer wins.Done()
			ok, err := s.MarkEnrichmentRequested(ctx, c.ID, later, later.Add(-window))
			if err != nil {
				t.Error(err)
			}
			results <- ok
		}()
	}
	wins.Wait()
	close(results)
	won := 0
	for ok := range results {
		if ok {
			won++
		}
	}
	if won != 1 {
		t.Errorf("%d concurrent callers marked enrichment, want 1", won)
	}
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

func TestIntegrationWriteNodesAndEdgesLoadsSeed(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	jur := uniqueJurisdiction()
	c := testConcept(jur, "VAT", "Value-Added Tax")
	if err := s.UpsertConcepts(ctx, []concept.Concept{c}, t0); err != nil {
		t.Fatal(err)
	}
	rateID := c.ID + ":RATE:STANDARD"
	before := s.Stats().WriteTransactions
	nodes := []graph.NodeWrite{{Label: "Rate", ID: rateID, Props: map[string]any{"percent": 23.0, "band": "standard", "effective_from": t0}}}
	edges := []graph.EdgeWrite{{FromID: c.ID, Type: "HAS_RATE", ToID: rateID}}
	if err := s.WriteNodesAndEdges(ctx, nodes, edges, t0); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteNodesAndEdges(ctx, nodes, edges, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if tx := s.Stats().WriteTransactions - before; tx != 2 {
		t.Errorf("%d write transactions for two calls, want 2", tx)
	}
	got, err := s.GetNodesByIDs(ctx, []string{rateID})
	if err != nil || len(got) != 1 {
		t.Fatalf("%v %v", got, err)
	}
	if got[0].Properties["percent"] != 23.0 || got[0].Properties["effective_from"] != graph.Timestamp(t0) || got[0].Properties["created_at"] != graph.Timestamp(t0) {
		t.Errorf("rate node = %+v", got[0])
	}
	if n := count(t, s, "MATCH (:Concept {id: $id})-[r:HAS_RATE]->(:Rate) RETURN count(r) AS n", map[string]any{"id": c.ID}); n != 1 {
		t.Errorf("%d HAS_RATE edges, want 1", n)
	}
	if ok, _ := s.HasUsefulDetail(ctx, c.ID, t0); !ok {
		t.Error("concept with a rate has no useful detail")
	}
	err = s.WriteNodesAndEdges(ctx, nil, []graph.EdgeWrite{{FromID: c.ID, Type: "HAS_RATE", ToID: c.ID + ":NOPE"}}, t0)
	if err == nil {
		t.Error("edge to a missing node accepted")
	}
	if err := s.WriteNodesAndEdges(ctx, []graph.NodeWrite{{Label: "User", ID: "x"}}, nil, t0); err == nil {
		t.Error("non-whitelisted label accepted")
	}
}
