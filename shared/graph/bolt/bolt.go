// Package bolt is the production graph: graph.ConceptStore over the Bolt
// protocol with neo4j-go-driver, talking to Memgraph in production and to
// Neo4j 5 in tests. Writes use ExecuteWrite (retried on transient errors such
// as Memgraph's serialization conflicts), reads ExecuteRead. Timestamps are
// epoch milliseconds computed in Go (see graph.Timestamp).
package bolt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"go.opentelemetry.io/otel/trace"

	"regintel/shared/concept"
	"regintel/shared/graph"
	"regintel/shared/tracing"
)

// Config says how to reach the graph.
type Config struct {
	URI      string
	User     string // empty: no authentication
	Password string
	Database string  // empty: the server's default database
	Dialect  Dialect // empty: detect from the server agent
}

// Stats counts the work sent to the server since the store was opened.
// Each attempt of a transaction function counts, so retries show up.
type Stats struct {
	WriteTransactions int64
	ReadTransactions  int64
	AutoCommitQueries int64
}

// Store is the Bolt implementation of graph.ConceptStore.
type Store struct {
	driver   neo4j.DriverWithContext
	uri      string
	database string

	mu      sync.Mutex
	dialect Dialect // configured, or detected on first need; empty until then
	checked bool    // the server's agent and version were checked (or need no check)

	writeTx    atomic.Int64
	readTx     atomic.Int64
	autoCommit atomic.Int64
}

var _ graph.ConceptStore = (*Store)(nil)

// Open makes the driver without touching the network: the graph is
// additive, so a process starts with the server down and each call fails
// (and is degraded by its caller) until the server answers. The dialect is
// the configured one, or detected from the server agent on first need.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	auth := neo4j.NoAuth()
	if cfg.User != "" {
		auth = neo4j.BasicAuth(cfg.User, cfg.Password, "")
	}
	if err := CheckURI(cfg.URI, cfg.Dialect); err != nil {
		return nil, err
	}
	driver, err := neo4j.NewDriverWithContext(cfg.URI, auth)
	if err != nil {
		return nil, fmt.Errorf("bolt graph: driver: %w", err)
	}
	// A configured Memgraph still has its version checked on first need.
	return &Store{driver: driver, uri: cfg.URI, database: cfg.Database, dialect: cfg.Dialect,
		checked: cfg.Dialect != Memgraph}, nil
}

// detectDialect returns the dialect, asking the server for its agent the
// first time when none was configured. A failed attempt is not remembered.
func (s *Store) detectDialect(ctx context.Context) (Dialect, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dialect != "" && s.checked {
		return s.dialect, nil
	}
	if s.dialect == Memgraph {
		if err := s.checkMemgraphServer(ctx); err != nil {
			return "", err
		}
		s.checked = true
		return s.dialect, nil
	}
	info, err := s.driver.GetServerInfo(ctx)
	if err != nil {
		return "", fmt.Errorf("bolt graph: connect: %w", withContextErr(ctx, err))
	}
	dialect, err := DetectDialect(info.Agent())
	if err != nil {
		return "", err
	}
	if err := CheckURI(s.uri, dialect); err != nil {
		return "", err
	}
	if dialect == Memgraph {
		if err := s.checkMemgraphServer(ctx); err != nil {
			return "", err
		}
	}
	s.dialect, s.checked = dialect, true
	slog.Info("graph connected", "agent", info.Agent(), "dialect", s.dialect)
	return s.dialect, nil
}

// checkMemgraphServer asks Memgraph for its version and refuses one older
// than MinMemgraphVersion.
func (s *Store) checkMemgraphServer(ctx context.Context) error {
	sess := s.session(ctx, neo4j.AccessModeRead)
	defer sess.Close(ctx)
	s.autoCommit.Add(1)
	res, err := sess.Run(ctx, "SHOW VERSION", nil)
	if err != nil {
		return fmt.Errorf("bolt graph: SHOW VERSION: %w", err)
	}
	rec, err := res.Single(ctx)
	if err != nil {
		return fmt.Errorf("bolt graph: SHOW VERSION: %w", err)
	}
	version, _ := rec.Values[0].(string)
	return checkMemgraphVersion(version)
}

// Close releases the driver's connections.
func (s *Store) Close(ctx context.Context) error { return s.driver.Close(ctx) }

// Dialect is the dialect in use: empty while it is still to be detected.
func (s *Store) Dialect() Dialect {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dialect
}

// Stats returns the transaction counters, for benchmarks and metrics.
func (s *Store) Stats() Stats {
	return Stats{
		WriteTransactions: s.writeTx.Load(),
		ReadTransactions:  s.readTx.Load(),
		AutoCommitQueries: s.autoCommit.Load(),
	}
}

func (s *Store) session(ctx context.Context, mode neo4j.AccessMode) neo4j.SessionWithContext {
	return s.driver.NewSession(ctx, neo4j.SessionConfig{DatabaseName: s.database, AccessMode: mode})
}

// write runs one query in a retried write transaction and returns its records.
func (s *Store) write(ctx context.Context, query string, params map[string]any) ([]*neo4j.Record, error) {
	var records []*neo4j.Record
	err := s.executeWrite(ctx, func(tx neo4j.ManagedTransaction) error {
		res, err := tx.Run(ctx, query, params)
		if err != nil {
			return err
		}
		records, err = res.Collect(ctx)
		return err
	})
	return records, err
}

// conflictRetries bounds the extra attempts after a uniqueness conflict.
const conflictRetries = 3

// executeWrite runs work in ExecuteWrite, which retries transient errors. On
// Memgraph two transactions that MERGE the same new node can also end with a
// unique-constraint violation, which the driver does not retry; the MERGE
// then finds the committed node, so a fresh attempt is right.
func (s *Store) executeWrite(ctx context.Context, work func(tx neo4j.ManagedTransaction) error) (err error) {
	ctx, span := tracing.Start(ctx, "graph write", trace.WithSpanKind(trace.SpanKindClient))
	defer func() { tracing.End(span, err) }()
	sess := s.session(ctx, neo4j.AccessModeWrite)
	defer sess.Close(ctx)
	for attempt := 0; ; attempt++ {
		_, err := sess.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
			s.writeTx.Add(1)
			return nil, work(tx)
		})
		if err == nil || attempt >= conflictRetries || !(isMergeConflict(err) || isConflictingTransactions(err)) {
			return withContextErr(ctx, err)
		}
		slog.Debug("graph write conflict, retrying", "attempt", attempt+1)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt+1) * 50 * time.Millisecond):
		}
	}
}

func (s *Store) read(ctx context.Context, query string, params map[string]any) (_ []*neo4j.Record, err error) {
	ctx, span := tracing.Start(ctx, "graph read", trace.WithSpanKind(trace.SpanKindClient))
	defer func() { tracing.End(span, err) }()
	sess := s.session(ctx, neo4j.AccessModeRead)
	defer sess.Close(ctx)
	out, err := sess.ExecuteRead(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		s.readTx.Add(1)
		res, err := tx.Run(ctx, query, params)
		if err != nil {
			return nil, err
		}
		return res.Collect(ctx)
	})
	if err != nil {
		return nil, withContextErr(ctx, err)
	}
	return out.([]*neo4j.Record), nil
}

// Ping runs the trivial `RETURN 1` in one round trip: the baseline the
// benchmark compares real writes against, and a readiness check.
func (s *Store) Ping(ctx context.Context) error {
	_, err := s.read(ctx, "RETURN 1 AS ok", nil)
	return err
}

// ApplySchema creates the id uniqueness constraint (and, on Memgraph, the
// index) for every whitelisted label. DDL cannot run inside an explicit
// transaction on either server, so each statement is auto-committed; one
// that fails because it already exists counts as applied.
func (s *Store) ApplySchema(ctx context.Context) error {
	dialect, err := s.detectDialect(ctx)
	if err != nil {
		return err
	}
	sess := s.session(ctx, neo4j.AccessModeWrite)
	defer sess.Close(ctx)
	for _, stmt := range dialect.SchemaStatements(graph.NodeLabels) {
		if err := s.runSchemaStatement(ctx, sess, stmt); err != nil {
			return fmt.Errorf("bolt graph: schema %q: %w", stmt, withContextErr(ctx, err))
		}
	}
	return nil
}

// schemaAttempts bounds the retries of one schema statement: two processes
// creating the same constraints at once (two deploys, two test packages)
// can meet a transient deadlock, which the server asks the client to retry.
const schemaAttempts = 5

func (s *Store) runSchemaStatement(ctx context.Context, sess neo4j.SessionWithContext, stmt string) error {
	var err error
	for attempt := 1; attempt <= schemaAttempts; attempt++ {
		s.autoCommit.Add(1)
		var res neo4j.ResultWithContext
		res, err = sess.Run(ctx, stmt, nil)
		if err == nil {
			_, err = res.Consume(ctx)
		}
		if err == nil || isAlreadyExists(err) {
			return nil
		}
		if !neo4j.IsRetryable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt) * 200 * time.Millisecond):
		}
	}
	return err
}

// getNodesQuery looks ids up label by label so each branch uses that label's
// id index; UNION removes a node matched under two labels. Labels come from
// the whitelist, never from input.
var getNodesQuery = func() string {
	parts := make([]string, len(graph.NodeLabels))
	for i, label := range graph.NodeLabels {
		parts[i] = fmt.Sprintf("MATCH (n:%s) WHERE n.id IN $ids RETURN n", label)
	}
	return strings.Join(parts, " UNION ")
}()

// GetNodesByIDs reads all the nodes in one query; missing ids are absent and
// the result follows the order of ids.
func (s *Store) GetNodesByIDs(ctx context.Context, ids []string) ([]graph.Node, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	records, err := s.read(ctx, getNodesQuery, map[string]any{"ids": ids})
	if err != nil {
		return nil, fmt.Errorf("bolt graph: get nodes: %w", err)
	}
	byID := make(map[string]graph.Node, len(records))
	for _, rec := range records {
		n, _, err := neo4j.GetRecordValue[neo4j.Node](rec, "n")
		if err != nil {
			return nil, fmt.Errorf("bolt graph: get nodes: %w", err)
		}
		gn := toGraphNode(n)
		byID[gn.ID] = gn
	}
	out := make([]graph.Node, 0, len(byID))
	for _, id := range ids {
		if n, ok := byID[id]; ok {
			out = append(out, n)
			delete(byID, id)
		}
	}
	return out, nil
}

// upsertConceptsQuery MERGEs a batch of official concepts in one
// statement. The first SET takes the node's write lock (Neo4j) or marks a
// write conflict (Memgraph, which then aborts and the driver retries), so
// the reads that follow see the latest committed node and concurrent
// writers lose no alias. On an official node the first pref_label,
// definition and id parts stick, and a different name arriving later is
// kept as an alias; text a node held before it was official is replaced.
const upsertConceptsQuery = `
UNWIND $rows AS row
MERGE (c:Concept {id: row.id})
ON CREATE SET c.created_at = $now
SET c.updated_at = $now
WITH c, row, coalesce(c.provenance, '') = 'official' AS was_official
SET c.provenance = 'official',
    c.pref_label = CASE WHEN was_official THEN coalesce(c.pref_label, row.pref_label) ELSE row.pref_label END,
    c.domain = coalesce(c.domain, row.domain),
    c.kind = coalesce(c.kind, row.kind),
    c.jurisdiction = coalesce(c.jurisdiction, row.jurisdiction),
    c.definition = CASE WHEN was_official AND coalesce(c.definition, '') <> '' THEN c.definition ELSE row.definition END,
    c.alt_labels = CASE WHEN was_official THEN c.alt_labels ELSE [] END,
    c.source_urls = CASE WHEN was_official THEN c.source_urls ELSE [] END
WITH c, row
SET c.alt_labels = reduce(acc = coalesce(c.alt_labels, []), name IN row.names |
        CASE WHEN toLower(name) = toLower(c.pref_label) OR any(x IN acc WHERE toLower(x) = toLower(name))
             THEN acc ELSE acc + name END),
    c.source_urls = reduce(acc = coalesce(c.source_urls, []), url IN row.source_urls |
        CASE WHEN url IN acc THEN acc ELSE acc + url END)
WITH c, row
UNWIND row.aliases AS alias
MERGE (l:Label {id: alias.id})
ON CREATE SET l.created_at = $now, l.` + "`text`" + ` = alias.` + "`text`" + `
SET l.updated_at = $now, l.provenance = 'official'
MERGE (c)-[r:HAS_ALT_LABEL]->(l)
ON CREATE SET r.created_at = $now, r.updated_at = $now
SET r.updated_at = CASE WHEN coalesce(r.provenance, '') = 'official' THEN r.updated_at ELSE $now END,
    r.provenance = 'official'
RETURN count(DISTINCT c) AS concepts`

// captureConceptsQuery creates the bare node of each captured concept
// where none exists; an existing node is not touched.
const captureConceptsQuery = `
UNWIND $rows AS row
MERGE (c:Concept {id: row.id})
ON CREATE SET c.created_at = $now, c.updated_at = $now, c.provenance = 'capture',
    c.domain = row.domain, c.kind = row.kind, c.jurisdiction = row.jurisdiction
RETURN count(c) AS concepts`

// UpsertConcepts writes every concept in one write transaction.
func (s *Store) UpsertConcepts(ctx context.Context, concepts []concept.Concept, prov graph.Provenance, now time.Time) error {
	if len(concepts) == 0 {
		return nil
	}
	rows := make([]map[string]any, 0, len(concepts))
	for _, c := range concepts {
		if c.ID == "" {
			return errors.New("bolt graph: concept without id")
		}
		if prov == graph.ProvenanceOfficial {
			rows = append(rows, conceptRow(c))
		} else {
			// A capture sends no text to the graph at all.
			rows = append(rows, map[string]any{"id": c.ID, "domain": c.Domain, "kind": c.Kind, "jurisdiction": c.Jurisdiction})
		}
	}
	// A stable lock order across concurrent batches avoids deadlocks.
	sort.Slice(rows, func(i, j int) bool { return rows[i]["id"].(string) < rows[j]["id"].(string) })
	query := upsertConceptsQuery
	if prov != graph.ProvenanceOfficial {
		query = captureConceptsQuery
	}
	_, err := s.write(ctx, query, map[string]any{"rows": rows, "now": graph.Timestamp(now)})
	if err != nil {
		return fmt.Errorf("bolt graph: upsert %d concepts: %w", len(concepts), err)
	}
	return nil
}

func conceptRow(c concept.Concept) map[string]any {
	names := make([]any, 0, len(c.AltLabels)+1)
	aliases := make([]any, 0, len(c.AltLabels)+1)
	seen := map[string]bool{}
	for _, name := range append([]string{c.PrefLabel}, c.AltLabels...) {
		id := graph.AltLabelID(name)
		if strings.TrimSpace(name) == "" || seen[id] {
			continue
		}
		seen[id] = true
		names = append(names, name)
		aliases = append(aliases, map[string]any{"id": id, "text": name})
	}
	urls := make([]any, 0, len(c.SourceURLs))
	for _, u := range c.SourceURLs {
		urls = append(urls, u)
	}
	return map[string]any{
		"id":           c.ID,
		"pref_label":   c.PrefLabel,
		"definition":   c.Definition,
		"domain":       c.Domain,
		"kind":         c.Kind,
		"jurisdiction": c.Jurisdiction,
		"names":        names,
		"aliases":      aliases,
		"source_urls":  urls,
	}
}

// hasUsefulDetailQuery: detail edges (types from the whitelist) to official
// nodes, the only ones shown, or a verification inside the freshness window.
var hasUsefulDetailQuery = `
MATCH (c:Concept {id: $id})
OPTIONAL MATCH (c)-[r:` + strings.Join(graph.DetailRelationshipTypes, "|") + `]->(d)
WHERE d.provenance = 'official'
WITH c, count(r) AS details
RETURN details > 0 OR coalesce(c.last_verified_at, -1) >= $fresh_since AS useful`

// HasUsefulDetail reports whether the concept has detail edges or was
// verified at or after freshSince. An unknown concept has none.
func (s *Store) HasUsefulDetail(ctx context.Context, id string, freshSince time.Time) (bool, error) {
	records, err := s.read(ctx, hasUsefulDetailQuery, map[string]any{"id": id, "fresh_since": graph.Timestamp(freshSince)})
	if err != nil {
		return false, fmt.Errorf("bolt graph: useful detail: %w", err)
	}
	if len(records) == 0 {
		return false, nil
	}
	useful, _, err := neo4j.GetRecordValue[bool](records[0], "useful")
	return useful, err
}

// markEnrichmentQuery is a compare-and-set in one statement. Writing the
// throwaway _lock property first takes the node's write lock on Neo4j (on
// Memgraph a concurrent writer conflicts and is retried), so the comparison
// sees the latest committed enrichment_requested_at and only one of several
// concurrent callers wins.
const markEnrichmentQuery = `
MATCH (c:Concept {id: $id})
SET c._lock = true
WITH c, coalesce(c.enrichment_requested_at, -1) < $not_before AS due
SET c.enrichment_requested_at = CASE WHEN due THEN $now ELSE c.enrichment_requested_at END
REMOVE c._lock
RETURN due`

// MarkEnrichmentRequested sets enrichment_requested_at = now unless it is
// already at or after notBefore, and reports whether it set it.
func (s *Store) MarkEnrichmentRequested(ctx context.Context, id string, now, notBefore time.Time) (bool, error) {
	records, err := s.write(ctx, markEnrichmentQuery, map[string]any{
		"id": id, "now": graph.Timestamp(now), "not_before": graph.Timestamp(notBefore),
	})
	if err != nil {
		return false, fmt.Errorf("bolt graph: mark enrichment: %w", err)
	}
	if len(records) == 0 {
		return false, nil
	}
	due, _, err := neo4j.GetRecordValue[bool](records[0], "due")
	return due, err
}

const clearEnrichmentQuery = `
MATCH (c:Concept {id: $id})
WHERE c.enrichment_requested_at = $marked_at
REMOVE c.enrichment_requested_at`

// ClearEnrichmentRequested implements graph.ConceptStore.
func (s *Store) ClearEnrichmentRequested(ctx context.Context, id string, markedAt time.Time) error {
	if _, err := s.write(ctx, clearEnrichmentQuery, map[string]any{"id": id, "marked_at": graph.Timestamp(markedAt)}); err != nil {
		return fmt.Errorf("bolt graph: clear enrichment mark: %w", err)
	}
	return nil
}

func toGraphNode(n neo4j.Node) graph.Node {
	props := make(map[string]any, len(n.Props))
	for k, v := range n.Props {
		props[k] = normalizeValue(v)
	}
	out := graph.Node{ID: asString(props["id"]), Labels: slices.Clone(n.Labels), Properties: props}
	out.PrefLabel = asString(props["pref_label"])
	out.Jurisdiction = asString(props["jurisdiction"])
	out.Definition = asString(props["definition"])
	if ts, ok := props["updated_at"].(int64); ok {
		out.UpdatedAt = graph.TimeFromTimestamp(ts)
	}
	delete(props, "id")
	return graph.ShownNode(out)
}

// normalizeValue turns a list of strings from the driver ([]any) into
// []string, the shape the in-memory graph returns.
func normalizeValue(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	strs := make([]string, 0, len(list))
	for _, item := range list {
		s, ok := item.(string)
		if !ok {
			return v
		}
		strs = append(strs, s)
	}
	return strs
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}
