package bolt

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"regintel/shared/graph"
)

func TestDetectDialect(t *testing.T) {
	cases := map[string]Dialect{
		"Neo4j/5.26.30": Neo4j,
		"Neo4j/v5.11.0 compatible graph database server - Memgraph": Memgraph,
		"Memgraph/2.19.0":       Memgraph,
		"neo4j/5.26 (MEMGRAPH)": Memgraph,
	}
	for agent, want := range cases {
		if got, err := DetectDialect(agent); err != nil || got != want {
			t.Errorf("DetectDialect(%q) = %q, %v; want %q", agent, got, err, want)
		}
	}
	// An empty agent is an old Memgraph, not Neo4j; an unknown one is neither.
	for _, agent := range []string{"", "  ", "FalkorDB/4.0"} {
		if got, err := DetectDialect(agent); err == nil {
			t.Errorf("DetectDialect(%q) = %q, want an error", agent, got)
		}
	}
}

func TestMemgraphVersionCheck(t *testing.T) {
	for v, ok := range map[string]bool{
		"2.11.0": true, "2.19.0": true, "3.1.1": true, "v2.11.1": true, "2.20.0-rc1": true,
		"2.10.1": false, "2.9.0": false, "1.6.0": false, "": false, "latest": false,
	} {
		if err := checkMemgraphVersion(v); (err == nil) != ok {
			t.Errorf("checkMemgraphVersion(%q) = %v, want accepted %v", v, err, ok)
		}
	}
}

func TestCheckURI(t *testing.T) {
	for _, c := range []struct {
		uri string
		d   Dialect
		ok  bool
	}{
		{"bolt://10.0.0.1:7687", Memgraph, true},
		{"bolt+s://memgraph.example.com:7687", Memgraph, true},
		{"bolt+ssc://memgraph.example.com:7687", "", true},
		{"neo4j://memgraph.example.com:7687", Memgraph, false},
		{"neo4j+s://memgraph.example.com:7687", Memgraph, false},
		{"neo4j://localhost:7687", Neo4j, true},
		{"neo4j://localhost:7687", "", true}, // refused once the server turns out to be Memgraph
		{"http://localhost:7687", "", false},
		{"localhost:7687", Memgraph, false},
	} {
		if err := CheckURI(c.uri, c.d); (err == nil) != c.ok {
			t.Errorf("CheckURI(%q, %q) = %v, want accepted %v", c.uri, c.d, err, c.ok)
		}
	}
}

func TestConflictingTransactionsAreRetried(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		// Older servers: a client error, which the driver does not retry.
		{&neo4j.Neo4jError{Code: "Memgraph.ClientError.MemgraphError.MemgraphError", Msg: "Cannot resolve conflicting transactions. You can retry this transaction when the conflicting transaction is finished"}, true},
		{&neo4j.Neo4jError{Code: "Memgraph.TransientError.MemgraphError.MemgraphError", Msg: "Cannot resolve conflicting transactions."}, true},
		{&neo4j.Neo4jError{Code: "Memgraph.ClientError.MemgraphError.MemgraphError", Msg: "Syntax error"}, false},
		{nil, false},
	} {
		if got := isConflictingTransactions(c.err); got != c.want {
			t.Errorf("isConflictingTransactions(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestParseDialect(t *testing.T) {
	for in, want := range map[string]Dialect{"": "", "auto": "", " Memgraph ": Memgraph, "NEO4J": Neo4j} {
		got, err := ParseDialect(in)
		if err != nil || got != want {
			t.Errorf("ParseDialect(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseDialect("postgres"); err == nil {
		t.Error("ParseDialect accepted an unknown dialect")
	}
}

func TestSchemaStatementsPerDialect(t *testing.T) {
	neo := Neo4j.SchemaStatements(graph.NodeLabels)
	if len(neo) != 2*len(graph.NodeLabels) {
		t.Fatalf("neo4j: %d statements for %d labels, want constraint + updated_at index each", len(neo), len(graph.NodeLabels))
	}
	if want := "CREATE INDEX regintel_concept_updated_at IF NOT EXISTS FOR (n:Concept) ON (n.updated_at)"; neo[1] != want {
		t.Errorf("neo4j index DDL = %q, want %q", neo[1], want)
	}
	if want := "CREATE CONSTRAINT regintel_concept_id_unique IF NOT EXISTS FOR (n:Concept) REQUIRE n.id IS UNIQUE"; neo[0] != want {
		t.Errorf("neo4j DDL = %q, want %q", neo[0], want)
	}
	mg := Memgraph.SchemaStatements(graph.NodeLabels)
	if len(mg) != 3*len(graph.NodeLabels) {
		t.Fatalf("memgraph: %d statements for %d labels, want id index + constraint + updated_at index each", len(mg), len(graph.NodeLabels))
	}
	for _, label := range graph.NodeLabels {
		idx := fmt.Sprintf("CREATE INDEX ON :%s(id)", label)
		con := fmt.Sprintf("CREATE CONSTRAINT ON (n:%s) ASSERT n.id IS UNIQUE", label)
		upd := fmt.Sprintf("CREATE INDEX ON :%s(updated_at)", label)
		if !slices.Contains(mg, idx) || !slices.Contains(mg, con) || !slices.Contains(mg, upd) {
			t.Errorf("memgraph DDL for %s missing %q or %q", label, idx, con)
		}
	}
	for _, s := range mg {
		if strings.Contains(s, "IF NOT EXISTS") || strings.Contains(s, "REQUIRE") {
			t.Errorf("memgraph DDL uses Neo4j syntax: %q", s)
		}
	}
}

func TestIsAlreadyExists(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{&neo4j.Neo4jError{Code: "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists", Msg: "An equivalent constraint already exists"}, true},
		{&neo4j.Neo4jError{Code: "Neo.ClientError.Schema.IndexAlreadyExists", Msg: "x"}, true},
		{fmt.Errorf("apply: %w", &neo4j.Neo4jError{Code: "Memgraph.ClientError.MemgraphError.MemgraphError", Msg: "Constraint already exists."}), true},
		{&neo4j.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError", Msg: "Invalid input"}, false},
		{&neo4j.Neo4jError{Code: "Neo.ClientError.Schema.ConstraintValidationFailed", Msg: "duplicate ids"}, false},
		{errors.New("connection reset"), false},
	}
	for _, c := range cases {
		if got := isAlreadyExists(c.err); got != c.want {
			t.Errorf("isAlreadyExists(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestIsMergeConflict(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{&neo4j.Neo4jError{Code: "Memgraph.ClientError.MemgraphError.MemgraphError", Msg: "Unable to commit due to unique constraint violation on :Concept(id)"}, true},
		{fmt.Errorf("tx: %w", &neo4j.Neo4jError{Code: "Neo.ClientError.Schema.ConstraintValidationFailed", Msg: "already exists with label"}), true},
		{&neo4j.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError", Msg: "Invalid input"}, false},
		{errors.New("unique constraint violation"), false}, // not from the server
		{nil, false},
	}
	for _, c := range cases {
		if got := isMergeConflict(c.err); got != c.want {
			t.Errorf("isMergeConflict(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
