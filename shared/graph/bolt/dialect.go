package bolt

import (
	"errors"
	"fmt"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Dialect is the Cypher flavour of the server: Memgraph in production,
// Neo4j 5 in tests. Only schema DDL differs; data queries are shared.
type Dialect string

const (
	// Memgraph: constraints create no index, so each label gets both.
	Memgraph Dialect = "memgraph"
	// Neo4j 5: a uniqueness constraint is backed by its own index.
	Neo4j Dialect = "neo4j"
)

// ParseDialect reads a GRAPH_DIALECT value. Empty or "auto" returns "" (detect
// from the server).
func ParseDialect(s string) (Dialect, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return "", nil
	case "memgraph":
		return Memgraph, nil
	case "neo4j":
		return Neo4j, nil
	}
	return "", fmt.Errorf("graph dialect %q: want memgraph, neo4j or auto", s)
}

// DetectDialect maps a server agent string to a dialect. Memgraph may announce
// itself as "Neo4j/v5.x (Memgraph ...)" for driver compatibility, so the
// Memgraph check comes first; an agent naming neither is taken as Neo4j.
func DetectDialect(agent string) Dialect {
	if strings.Contains(strings.ToLower(agent), "memgraph") {
		return Memgraph
	}
	return Neo4j
}

// SchemaStatements returns the DDL that makes id unique (and indexed) for
// every label. Labels come from the whitelist, never from input.
func (d Dialect) SchemaStatements(labels []string) []string {
	var out []string
	for _, label := range labels {
		switch d {
		case Memgraph:
			out = append(out,
				fmt.Sprintf("CREATE INDEX ON :%s(id)", label),
				fmt.Sprintf("CREATE CONSTRAINT ON (n:%s) ASSERT n.id IS UNIQUE", label),
				// The change feed reads by updated_at.
				fmt.Sprintf("CREATE INDEX ON :%s(updated_at)", label))
		default:
			out = append(out,
				fmt.Sprintf("CREATE CONSTRAINT %s IF NOT EXISTS FOR (n:%s) REQUIRE n.id IS UNIQUE", constraintName(label), label),
				fmt.Sprintf("CREATE INDEX %s IF NOT EXISTS FOR (n:%s) ON (n.updated_at)", updatedIndexName(label), label))
		}
	}
	return out
}

func updatedIndexName(label string) string {
	return "regintel_" + strings.ToLower(label) + "_updated_at"
}

func constraintName(label string) string {
	return "regintel_" + strings.ToLower(label) + "_id_unique"
}

// isAlreadyExists reports whether a schema statement failed only because its
// index or constraint is already there (Neo4j: an equivalent rule under
// another name; Memgraph: "already exists" in the message), which counts as
// success when applying the schema again.
func isAlreadyExists(err error) bool {
	if err == nil {
		return false
	}
	var dbErr *neo4j.Neo4jError
	if errors.As(err, &dbErr) {
		if strings.Contains(dbErr.Code, "AlreadyExists") {
			return true
		}
		return strings.Contains(strings.ToLower(dbErr.Msg), "already exists")
	}
	return strings.Contains(strings.ToLower(err.Error()), "already exists")
}

// isMergeConflict reports a commit that lost a race to create the same
// unique node (Memgraph: "unique constraint violation"; Neo4j:
// ConstraintValidationFailed, which its MERGE locking normally prevents).
// Retrying is safe because every write MERGEs by id.
func isMergeConflict(err error) bool {
	var dbErr *neo4j.Neo4jError
	if errors.As(err, &dbErr) {
		if strings.HasSuffix(dbErr.Code, "Schema.ConstraintValidationFailed") {
			return true
		}
		return strings.Contains(strings.ToLower(dbErr.Msg), "unique constraint violation")
	}
	return false
}
