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

// groundFacts ends each branch of groundQuery: the concept's detail nodes,
// newest first. Go sorts and trims them again, so a server that does not
// keep the order inside collect still gets the same answer.
const groundFacts = `
OPTIONAL MATCH (c)-[r]->(f)
WHERE any(k IN labels(f) WHERE k IN $fact_kinds)
WITH c, matched, r, f
ORDER BY coalesce(f.updated_at, 0) DESC, f.id
WITH c, matched, collect({node: f, rel: type(r)}) AS facts
RETURN c, matched, facts[0..$fetch] AS facts`

// groundQuery reads the active concepts and the concepts named in the text
// (through their alias nodes' id index) with their facts, in one statement.
const groundQuery = `
MATCH (c:Concept) WHERE c.id IN $active_ids
OPTIONAL MATCH (c)-[:HAS_ALT_LABEL]->(l:Label) WHERE l.id IN $label_ids
WITH c, collect(l.id) AS matched` + groundFacts + `
UNION
MATCH (l:Label) WHERE l.id IN $label_ids
MATCH (c:Concept)-[:HAS_ALT_LABEL]->(l)
WHERE NOT c.id IN $active_ids AND (size($scope) = 0 OR c.jurisdiction IN $scope)
WITH c, collect(l.id) AS matched` + groundFacts

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
	records, err := s.read(ctx, groundQuery, map[string]any{
		"active_ids": active, "label_ids": labelIDs, "scope": orEmpty(graph.ScopeJurisdictions(q.Jurisdictions)),
		"fact_kinds": graph.FactKinds, "fetch": 2 * q.MaxFacts(),
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
		gc, position, err := groundedConcept(rec, candidates, q.MaxFacts())
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
func groundedConcept(rec *neo4j.Record, candidates map[string]int, maxFacts int) (graph.GroundedConcept, int, error) {
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
		node.Properties["id"] = node.ID
		facts = append(facts, graph.NewFact(node.ID, graph.FactKind(node.Labels), asString(fields["rel"]), node.Properties, gc.Node.Properties))
	}
	gc.Facts = graph.SortFacts(facts, maxFacts)
	return gc, position, nil
}

// resolveQuery finds, for every captured concept, the concepts with its
// (domain, kind, jurisdiction) or its id, and the concepts of its
// jurisdiction carrying one of its names; graph.ChooseResolution picks.
const resolveQuery = `
UNWIND $rows AS row
OPTIONAL MATCH (same:Concept)
WHERE same.id = row.id OR (same.domain = row.domain AND same.kind = row.kind AND same.jurisdiction = row.jurisdiction)
OPTIONAL MATCH (named:Concept)-[:HAS_ALT_LABEL]->(l:Label)
WHERE l.id IN row.label_ids AND named.jurisdiction = row.jurisdiction
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
