CREATE CONSTRAINT ON (n:Benefit) ASSERT n.id IS UNIQUE
;
CREATE CONSTRAINT ON (n:Concept) ASSERT n.id IS UNIQUE
;
CREATE CONSTRAINT ON (n:Guidance) ASSERT n.id IS UNIQUE
;
CREATE CONSTRAINT ON (n:Jurisdiction) ASSERT n.id IS UNIQUE
;
CREATE CONSTRAINT ON (n:Label) ASSERT n.id IS UNIQUE
;
CREATE CONSTRAINT ON (n:Rate) ASSERT n.id IS UNIQUE
;
CREATE CONSTRAINT ON (n:Relief) ASSERT n.id IS UNIQUE
;
CREATE CONSTRAINT ON (n:Rule) ASSERT n.id IS UNIQUE
;
CREATE CONSTRAINT ON (n:Section) ASSERT n.id IS UNIQUE
;
CREATE CONSTRAINT ON (n:Threshold) ASSERT n.id IS UNIQUE
;
CREATE CONSTRAINT ON (n:Timeline) ASSERT n.id IS UNIQUE
;
CREATE INDEX ON :Benefit(id)
;
CREATE INDEX ON :Benefit(updated_at)
;
CREATE INDEX ON :Concept(id)
;
CREATE INDEX ON :Concept(updated_at)
;
CREATE INDEX ON :Guidance(id)
;
CREATE INDEX ON :Guidance(updated_at)
;
CREATE INDEX ON :Jurisdiction(id)
;
CREATE INDEX ON :Jurisdiction(updated_at)
;
CREATE INDEX ON :Label(id)
;
CREATE INDEX ON :Label(updated_at)
;
CREATE INDEX ON :Rate(id)
;
CREATE INDEX ON :Rate(updated_at)
;
CREATE INDEX ON :Relief(id)
;
CREATE INDEX ON :Relief(updated_at)
;
CREATE INDEX ON :Rule(id)
;
CREATE INDEX ON :Rule(updated_at)
;
CREATE INDEX ON :Section(id)
;
CREATE INDEX ON :Section(updated_at)
;
CREATE INDEX ON :Threshold(id)
;
CREATE INDEX ON :Threshold(updated_at)
;
CREATE INDEX ON :Timeline(id)
;
CREATE INDEX ON :Timeline(updated_at)
;
MATCH (a)-[r]->(b)
WHERE r.updated_at IS NOT NULL AND type(r) IN $types
  AND any(l IN labels(a) WHERE l IN $labels) AND any(l IN labels(b) WHERE l IN $labels)
  AND (size($jurisdictions) = 0 OR (a.jurisdiction IN $jurisdictions AND b.jurisdiction IN $jurisdictions))
  AND ($until = 0 OR r.updated_at <= $until)
WITH a, r, b, 'e:' + a.id + '|' + type(r) + '|' + b.id AS key
WHERE r.updated_at > $after_ts OR (r.updated_at = $after_ts AND key > $after_key)
RETURN a.id AS from, type(r) AS type, b.id AS to, properties(r) AS props, r.updated_at AS updated_at, key
ORDER BY r.updated_at, key
LIMIT $limit
;
MATCH (c:Concept {id: $id})
OPTIONAL MATCH (c)-[r:
;
MATCH (c:Concept {id: $id})
SET c._lock = true
WITH c, coalesce(c.enrichment_requested_at, -1) < $not_before AS due
SET c.enrichment_requested_at = CASE WHEN due THEN $now ELSE c.enrichment_requested_at END
REMOVE c._lock
RETURN due
;
MATCH (c:Concept {id: $id})
WHERE c.enrichment_requested_at = $marked_at
REMOVE c.enrichment_requested_at
;
MATCH (c:Concept) WHERE c.id IN $active_ids
OPTIONAL MATCH (c)-[a:HAS_ALT_LABEL]->(l:Label) WHERE l.id IN $label_ids AND a.provenance = 'official'
WITH c, collect(l.id) AS matched
;
MATCH (n)
WHERE n.updated_at IS NOT NULL
  AND (n.updated_at > $after_ts OR (n.updated_at = $after_ts AND 'n:' + n.id > $after_key))
  AND ($until = 0 OR n.updated_at <= $until)
  AND any(l IN labels(n) WHERE l IN $labels)
  AND (size($jurisdictions) = 0 OR n.jurisdiction IN $jurisdictions)
RETURN n
ORDER BY n.updated_at, n.id
LIMIT $limit
;
MATCH (n:Concept) WHERE n.id IN $ids RETURN n
;
MATCH (n:Concept) WHERE n.id IN $ids RETURN n.id AS id, labels(n) AS labels
;
MATCH (n:Concept) WHERE n.series IN $series OR any(p IN $prefixes WHERE n.series STARTS WITH p) RETURN n
;
OPTIONAL MATCH (c)-[r]->(f)
WHERE any(k IN labels(f) WHERE k IN $fact_kinds) AND f.provenance = 'official'
  AND coalesce(f.valid_from, '') <= $window_to AND coalesce(f.valid_to, $window_from) >= $window_from
WITH c, matched, r, f
ORDER BY coalesce(f.updated_at, 0) DESC, f.id
WITH c, matched, collect({node: f, rel: type(r)}) AS facts
RETURN c, matched, facts[0..$fetch] AS facts
;
RETURN 1 AS ok
;
SHOW VERSION
;
UNION
MATCH (l:Label) WHERE l.id IN $label_ids
MATCH (c:Concept)-[a:HAS_ALT_LABEL]->(l)
WHERE a.provenance = 'official' AND c.provenance = 'official'
  AND NOT c.id IN $active_ids AND (size($scope) = 0 OR c.jurisdiction IN $scope)
WITH c, collect(l.id) AS matched
;
UNWIND $rows AS row
MATCH (a:Concept {id: row.from})
MATCH (b:Concept {id: row.to})
MERGE (a)-[r:Concept]->(b)
ON CREATE SET r.created_at = $now
SET r += row.props, r.updated_at = $now
;
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
ON CREATE SET l.created_at = $now, l.`text` = alias.`text`
SET l.updated_at = $now, l.provenance = 'official'
MERGE (c)-[r:HAS_ALT_LABEL]->(l)
ON CREATE SET r.created_at = $now, r.updated_at = $now
SET r.updated_at = CASE WHEN coalesce(r.provenance, '') = 'official' THEN r.updated_at ELSE $now END,
    r.provenance = 'official'
RETURN count(DISTINCT c) AS concepts
;
UNWIND $rows AS row
MERGE (c:Concept {id: row.id})
ON CREATE SET c.created_at = $now, c.updated_at = $now, c.provenance = 'capture',
    c.domain = row.domain, c.kind = row.kind, c.jurisdiction = row.jurisdiction
RETURN count(c) AS concepts
;
UNWIND $rows AS row
MERGE (n:Concept {id: row.id})
ON CREATE SET n.created_at = $now
SET n += row.props, n.updated_at = $now
;
UNWIND $rows AS row
OPTIONAL MATCH (same:Concept)
WHERE same.id = row.id OR (same.domain = row.domain AND same.kind = row.kind AND same.jurisdiction = row.jurisdiction)
OPTIONAL MATCH (named:Concept)-[a:HAS_ALT_LABEL]->(l:Label)
WHERE l.id IN row.label_ids AND named.jurisdiction = row.jurisdiction AND a.provenance = 'official'
RETURN row.i AS i, same.id AS same_id, named.id AS named_id, named.pref_label AS named_pref
;
]->(d)
WHERE d.provenance = 'official'
WITH c, count(r) AS details
RETURN details > 0 OR coalesce(c.last_verified_at, -1) >= $fresh_since AS useful
