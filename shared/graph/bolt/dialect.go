package bolt

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
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

// DetectDialect maps a server agent string to a dialect. Memgraph announces
// itself as "Neo4j/v5.11.0 compatible graph database server - Memgraph" for
// driver compatibility, so the Memgraph check comes first. An empty agent
// is an error: Memgraph before MinMemgraphVersion sends none, and taking it
// for Neo4j would send Neo4j DDL to Memgraph.
func DetectDialect(agent string) (Dialect, error) {
	lower := strings.ToLower(strings.TrimSpace(agent))
	switch {
	case lower == "":
		return "", fmt.Errorf("bolt graph: the server announced no agent (Memgraph before %s does not): "+
			"upgrade Memgraph, or set GRAPH_DIALECT", MinMemgraphVersion)
	case strings.Contains(lower, "memgraph"):
		return Memgraph, nil
	case strings.HasPrefix(lower, "neo4j/"):
		return Neo4j, nil
	}
	return "", fmt.Errorf("bolt graph: server agent %q is neither Memgraph nor Neo4j", agent)
}

// MinMemgraphVersion is the oldest Memgraph the store supports: the first
// that announces itself in its server agent. It is checked with SHOW
// VERSION when the store first reaches a Memgraph server.
const MinMemgraphVersion = "2.11.0"

// checkMemgraphVersion fails when version (SHOW VERSION's answer, such as
// "2.19.0" or "3.1.1") is older than MinMemgraphVersion.
func checkMemgraphVersion(version string) error {
	got, ok := parseVersion(version)
	min, _ := parseVersion(MinMemgraphVersion)
	if !ok {
		return fmt.Errorf("bolt graph: Memgraph version %q does not parse", version)
	}
	if slices.Compare(got, min) < 0 {
		return fmt.Errorf("bolt graph: Memgraph %s is older than the minimum %s", version, MinMemgraphVersion)
	}
	return nil
}

// parseVersion reads the leading major.minor.patch of a version string.
func parseVersion(v string) ([]int, bool) {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	if i := strings.IndexAny(v, "-+ "); i >= 0 {
		v = v[:i]
	}
	parts := strings.Split(v, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, false
	}
	out := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

// CheckURI refuses a routing URI (neo4j://) for Memgraph: a single Memgraph
// server does not answer routing requests, so every query would fail.
// bolt://, bolt+s:// and bolt+ssc:// connect to the one server named.
func CheckURI(uri string, d Dialect) error {
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" {
		return fmt.Errorf("bolt graph: URI %q: want bolt://host:7687", uri)
	}
	switch u.Scheme {
	case "bolt", "bolt+s", "bolt+ssc":
		return nil
	case "neo4j", "neo4j+s", "neo4j+ssc":
		if d == Memgraph {
			return fmt.Errorf("bolt graph: URI %q: Memgraph takes bolt:// or bolt+s://, not a routing URI", uri)
		}
		return nil
	}
	return fmt.Errorf("bolt graph: URI scheme %q: want bolt, bolt+s or bolt+ssc", u.Scheme)
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

// isConflictingTransactions reports Memgraph's serialization conflict
// between two concurrent write transactions. Recent servers send it as a
// transient error, which the driver retries; older ones send it as a
// client error, which it does not. Either way the write is safe to retry:
// nothing of the losing transaction was committed.
func isConflictingTransactions(err error) bool {
	return err != nil && strings.Contains(strings.ToLower(err.Error()), "cannot resolve conflicting transactions")
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
