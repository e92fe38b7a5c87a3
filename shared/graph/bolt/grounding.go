package bolt

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"regintel/shared/concept"
	"regintel/shared/graph"
)

var _ graph.Store = (*Store)(nil)

// groundFacts ends each branch of groundQuery: the concept's official
// detail nodes valid somewhere in the as-of window, newest first (ISO dates
// compare as strings). Go picks the as-of values and neighbours and sorts
// them again, so a server that does not keep the order inside collect
// still gets the same answer.
const groundFacts = `
OPTIONAL MATCH (c)-[r]->(f)
WHERE any(k IN labels(f) WHERE k IN $fact_kinds) AND f.provenance = 'official'
  AND coalesce(f.valid_from, '') <= $window_to AND coalesce(f.valid_to, $window_from) >= $window_from
WITH c, matched, r, f
ORDER BY coalesce(f.updated_at, 0) DESC, f.id
WITH c, matched, collect({node: f, rel: type(r)}) AS facts
RETURN c, matched, facts[0..$fetch] AS facts`

// groundQuery reads the active concepts and the concepts named in the text
// (through their alias nodes' id index, by official aliases of official
// concepts only) with their facts, in one statement.
const groundQuery = `
MATCH (c:Concept) WHERE c.id IN $active_ids
OPTIONAL MATCH (c)-[a:HAS_ALT_LABEL]->(l:Label) WHERE l.id IN $label_ids AND a.provenance = 'official'
WITH c, collect(l.id) AS matched` + groundFacts + `
UNION
MATCH (l:Label) WHERE l.id IN $label_ids
MATCH (c:Concept)-[a:HAS_ALT_LABEL]->(l)
WHERE a.provenance = 'official' AND c.provenance = 'official'
  AND NOT c.id IN $active_ids AND (size($scope) = 0 OR c.jurisdiction IN $scope)
WITH c, collect(l.id) AS matched` + groundFacts

// factsFetched times the facts a turn shows bounds the facts read per
// concept: a series' history within the as-of window reaches Go whole.
const factsFetched = 8

// Ground implements graph.GroundingReader in one read query.
func (s *Store) Ground(ctx context.Context, q graph.GroundingQuery) ([]graph.GroundedConcept, error) {
	candidates := graph.MentionCandidates(q.Text)
	active := distinct(q.ActiveIDs)
	if len(active) == 0 && len(candidates) == 0 {
		return nil, nil
	}
	labelIDs := make([]string, 0, len(candidates))
	for id := range candidates {
		labelIDs = append(labelIDs, id)
	}
	asOf := q.AsOfDate()
	windowFrom, windowTo := graph.FactWindow(asOf)
	records, err := s.read(ctx, groundQuery, map[string]any{
		"active_ids": active, "label_ids": labelIDs, "scope": orEmpty(graph.ScopeJurisdictions(q.Jurisdictions)),
		"fact_kinds": graph.FactKinds, "fetch": factsFetched * q.MaxFacts(),
		"window_from": windowFrom, "window_to": windowTo,
	})
	if err != nil {
		return nil, fmt.Errorf("bolt graph: ground: %w", err)
	}
	type found struct {
		gc       graph.GroundedConcept
		position int // of the first mention in the text
	}
	byID := map[string]found{}
	for _, rec := range records {
		gc, position, err := groundedConcept(rec, candidates, asOf, q.MaxFacts())
		if err != nil {
			return nil, fmt.Errorf("bolt graph: ground: %w", err)
		}
		byID[gc.Node.ID] = found{gc, position}
	}
	var out []graph.GroundedConcept
	for _, id := range active {
		if f, ok := byID[id]; ok {
			out = append(out, f.gc)
			delete(byID, id)
		}
	}
	mentioned := make([]found, 0, len(byID))
	for _, f := range byID {
		mentioned = append(mentioned, f)
	}
	slices.SortFunc(mentioned, func(a, b found) int {
		return cmp.Or(cmp.Compare(a.position, b.position), strings.Compare(a.gc.Node.ID, b.gc.Node.ID))
	})
	for _, f := range mentioned {
		out = append(out, f.gc)
	}
	return out, nil
}

// groundedConcept decodes one row of groundQuery.
func groundedConcept(rec *neo4j.Record, candidates map[string]int, asOf string, maxFacts int) (graph.GroundedConcept, int, error) {
	c, _, err := neo4j.GetRecordValue[neo4j.Node](rec, "c")
	if err != nil {
		return graph.GroundedConcept{}, 0, err
	}
	matched, _, _ := neo4j.GetRecordValue[[]any](rec, "matched")
	rows, _, _ := neo4j.GetRecordValue[[]any](rec, "facts")
	gc := graph.GroundedConcept{Node: toGraphNode(c)}
	position := -1
	for _, m := range matched {
		if pos, ok := candidates[asString(m)]; ok && (position < 0 || pos < position) {
			position = pos
		}
	}
	gc.Mentioned = position >= 0
	var facts []graph.Fact
	for _, row := range rows {
		fields, _ := row.(map[string]any)
		f, ok := fields["node"].(neo4j.Node)
		if !ok {
			continue // the OPTIONAL MATCH found no fact
		}
		node := toGraphNode(f)
		if !graph.IsOfficial(node.Properties) {
			continue
		}
		node.Properties["id"] = node.ID
		facts = append(facts, graph.NewFact(node.ID, graph.FactKind(node.Labels), asString(fields["rel"]), node.Properties, gc.Node.Properties))
	}
	gc.Facts = graph.SelectFacts(facts, asOf, maxFacts)
	return gc, position, nil
}

// resolveQuery finds, for every captured concept, the concepts with its
// (domain, kind, jurisdiction) or its id, and the concepts of its
// jurisdiction carrying one of its names; graph.ChooseResolution picks.
const resolveQuery = `
UNWIND $rows AS row
OPTIONAL MATCH (same:Concept)
WHERE same.id = row.id OR (same.domain = row.domain AND same.kind = row.kind AND same.jurisdiction = row.jurisdiction)
OPTIONAL MATCH (named:Concept)-[a:HAS_ALT_LABEL]->(l:Label)
WHERE l.id IN row.label_ids AND named.jurisdiction = row.jurisdiction AND a.provenance = 'official'
RETURN row.i AS i, same.id AS same_id, named.id AS named_id, named.pref_label AS named_pref`

// ResolveConcepts implements graph.ConceptResolver in one read query.
func (s *Store) ResolveConcepts(ctx context.Context, concepts []concept.Concept) ([]string, error) {
	if len(concepts) == 0 {
		return nil, nil
	}
	normalised := make([]concept.Concept, len(concepts))
	rows := make([]any, len(concepts))
	for i, raw := range concepts {
		c := concept.Normalize(raw)
		normalised[i] = c
		rows[i] = map[string]any{
			"i": i, "id": c.ID, "domain": c.Domain, "kind": c.Kind, "jurisdiction": c.Jurisdiction,
			"label_ids": graph.ResolutionLabelIDs(c),
		}
	}
	records, err := s.read(ctx, resolveQuery, map[string]any{"rows": rows})
	if err != nil {
		return nil, fmt.Errorf("bolt graph: resolve concepts: %w", err)
	}
	sameTriple := make([][]string, len(concepts))
	byName := make([][]graph.NameMatch, len(concepts))
	for _, rec := range records {
		i, _, err := neo4j.GetRecordValue[int64](rec, "i")
		if err != nil || i < 0 || int(i) >= len(concepts) {
			return nil, fmt.Errorf("bolt graph: resolve concepts: bad row index")
		}
		if id, ok := rec.AsMap()["same_id"].(string); ok && !slices.Contains(sameTriple[i], id) {
			sameTriple[i] = append(sameTriple[i], id)
		}
		if id, ok := rec.AsMap()["named_id"].(string); ok {
			byName[i] = append(byName[i], graph.NameMatch{ID: id, PrefLabel: asString(rec.AsMap()["named_pref"])})
		}
	}
	out := make([]string, len(concepts))
	for i, c := range normalised {
		out[i] = graph.ChooseResolution(c, sameTriple[i], byName[i])
	}
	return out, nil
}

// distinct drops repeated ids, keeping the first of each.
func distinct(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// factSeriesQuery reads a series' nodes label by label (labels from the
// whitelist, never from input).
var factSeriesQuery = func() string {
	parts := make([]string, len(graph.FactKinds))
	for i, kind := range graph.FactKinds {
		parts[i] = fmt.Sprintf("MATCH (n:%s) WHERE n.series IN $series OR any(p IN $prefixes WHERE n.series STARTS WITH p) RETURN n", kind)
	}
	return strings.Join(parts, " UNION ")
}()

// FactSeries implements graph.SeriesReader in one read query.
func (s *Store) FactSeries(ctx context.Context, series []string) ([]graph.Node, error) {
	if len(series) == 0 {
		return nil, nil
	}
	exact, prefixes := graph.SeriesPrefixes(series)
	if exact == nil {
		exact = []string{}
	}
	if prefixes == nil {
		prefixes = []string{}
	}
	records, err := s.read(ctx, factSeriesQuery, map[string]any{"series": exact, "prefixes": prefixes})
	if err != nil {
		return nil, fmt.Errorf("bolt graph: fact series: %w", err)
	}
	out := make([]graph.Node, 0, len(records))
	for _, rec := range records {
		n, _, err := neo4j.GetRecordValue[neo4j.Node](rec, "n")
		if err != nil {
			return nil, fmt.Errorf("bolt graph: fact series: %w", err)
		}
		out = append(out, toGraphNode(n))
	}
	slices.SortFunc(out, func(a, b graph.Node) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}
