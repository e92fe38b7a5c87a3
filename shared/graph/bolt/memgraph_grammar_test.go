package bolt

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"regintel/shared/graph"
)

var updateCypher = flag.Bool("update-cypher", false, "rewrite testdata/memgraph-statements.cypher from the package's queries")

// memgraphReserved are the words Memgraph's grammar lexes as keywords and
// does not accept as a name (variable, property key, label, map key or
// parameter) in at least one release from MinMemgraphVersion on. Reviewed
// against the grammar of each release (MemgraphCypher.g4: the lexer's
// keywords minus symbolicName's alternatives): TEXT in 2.15.1 to 2.20.0,
// IF in 2.18, HOPS from 2.18, METRICS in 2.19 to 2.21, SNAPSHOTS,
// LEADERSHIP and the 3.5.0 additions, KSHORTEST from 3.5; the others up to
// 2.15.0. Backtick-quoted, each is a plain name on every release.
var memgraphReserved = strings.Fields(`
	COALESCE CONSTRAINTS COORDINATOR DATABASES DIRECTORY DURABILITY FREE_MEMORY GRANTS
	HOPS IF IGNORE INDEXES KB KSHORTEST LAG LEADERSHIP MB MEMORY METRICS
	MODULE_READ MODULE_WRITE MULTI_DATABASE_EDIT MULTI_DATABASE_USE ON_DISK_TRANSACTIONAL
	PROFILES PROFILE_RESTRICTION READ_FILE RESOURCE SERVER SERVICE_URL SNAPSHOTS STATISTICS
	STOP STORAGE_MODE TEXT TRANSACTION_MANAGEMENT UNLIMITED UNREGISTER USAGE WEBSOCKET`)

// memgraphUnsupported are Neo4j constructs Memgraph's documentation lists
// as different or absent: its own path syntax replaces the shortest-path
// functions, there is no APOC, no COUNT/COLLECT subquery, no USE clause
// for a database, and its LOAD CSV takes other arguments.
var memgraphUnsupported = map[string]*regexp.Regexp{
	"shortestPath/allShortestPaths (Memgraph: [*BFS] / [*ALLSHORTEST])": regexp.MustCompile(`(?i)\b(all)?shortestPath\s*\(`),
	"APOC procedures":           regexp.MustCompile(`(?i)\bapoc\.`),
	"COUNT { } / COLLECT { }":   regexp.MustCompile(`(?i)\b(COUNT|COLLECT)\s*\{`),
	"USE <database> clause":     regexp.MustCompile(`(?i)^\s*USE\s`),
	"Neo4j LOAD CSV":            regexp.MustCompile(`(?i)\bLOAD\s+CSV\s+WITH\s+HEADERS\s+FROM\b`),
	"Neo4j DDL (IF NOT EXISTS)": regexp.MustCompile(`(?i)\bIF\s+NOT\s+EXISTS\b`),
	"elementId (Memgraph: id)":  regexp.MustCompile(`(?i)\belementId\s*\(`),
}

// Every Cypher statement the store can send to Memgraph, recorded in
// testdata and checked against Memgraph's grammar differences. A new or
// changed statement fails until it is reviewed: rerun with -update-cypher
// and commit the recorded file with the change.
func TestCypherStatementsSuitMemgraph(t *testing.T) {
	statements := append(packageQueries(t), Memgraph.SchemaStatements(graph.NodeLabels)...)
	statements = append(statements, "SHOW VERSION")
	slices.Sort(statements)
	statements = slices.Compact(statements)
	recorded := filepath.Join("testdata", "memgraph-statements.cypher")
	text := strings.Join(statements, "\n;\n") + "\n"
	if *updateCypher {
		if err := os.WriteFile(recorded, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(recorded)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != text {
		t.Errorf("the store's Cypher differs from %s: review the change against Memgraph's grammar, then rerun with -update-cypher", recorded)
	}
	for _, stmt := range statements {
		for _, problem := range memgraphProblems(stmt) {
			t.Errorf("Memgraph: %s in\n%s", problem, stmt)
		}
	}
}

// The check finds what it is meant to find.
func TestMemgraphProblemsFindsTheDifferences(t *testing.T) {
	for stmt, want := range map[string]int{
		"MERGE (l:Label {id: $id}) SET l.text = $text":                 2,
		"MERGE (l:Label {id: $id}) SET l.`text` = alias.`text`":        0,
		"MATCH p = shortestPath((a)-[*]-(b)) RETURN p":                 1,
		"CREATE INDEX x IF NOT EXISTS FOR (n:Concept) ON (n.id)":       2,
		"RETURN coalesce(n.kind, 'x') AS kind":                         0,
		"UNWIND $rows AS hops RETURN hops":                             2,
		"MATCH (n) WHERE n.note = 'text in a string' RETURN n.updated": 0,
	} {
		if got := memgraphProblems(stmt); len(got) != want {
			t.Errorf("memgraphProblems(%q) = %v, want %d problems", stmt, got, want)
		}
	}
}

var (
	cypherStrings = regexp.MustCompile(`'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|` + "`[^`]*`")
	cypherWord    = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
)

// memgraphProblems lists what Memgraph would refuse in stmt: reserved words
// used as names outside backticks, and unsupported constructs.
func memgraphProblems(stmt string) []string {
	var out []string
	for what, re := range memgraphUnsupported {
		if re.MatchString(stmt) {
			out = append(out, what)
		}
	}
	bare := cypherStrings.ReplaceAllString(stmt, " ")
	for _, loc := range cypherWord.FindAllStringIndex(bare, -1) {
		word := strings.ToUpper(bare[loc[0]:loc[1]])
		if !slices.Contains(memgraphReserved, word) {
			continue
		}
		// coalesce(...) has a grammar rule of its own.
		if word == "COALESCE" && strings.HasPrefix(strings.TrimSpace(bare[loc[1]:]), "(") {
			continue
		}
		out = append(out, "reserved word "+bare[loc[0]:loc[1]]+" unquoted")
	}
	return out
}

var cypherClause = regexp.MustCompile(`\b(MATCH|MERGE|UNWIND|RETURN)\b`)

// packageQueries are the Cypher string constants and literals of the
// package's own (non-test) files, with literal concatenations folded and
// each %s of a Sprintf format shown as a label.
func packageQueries(t *testing.T) []string {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			s, ok := foldString(n)
			if !ok {
				return true
			}
			if cypherClause.MatchString(s) {
				out = append(out, strings.TrimSpace(strings.ReplaceAll(s, "%s", "Concept")))
			}
			return false
		})
	}
	return out
}

// foldString evaluates a string literal or a + of string literals.
func foldString(n ast.Node) (string, bool) {
	switch e := n.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		l, okL := foldString(e.X)
		r, okR := foldString(e.Y)
		return l + r, okL && okR
	case *ast.ParenExpr:
		return foldString(e.X)
	}
	return "", false
}
