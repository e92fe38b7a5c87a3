package seeddata

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"regintel/shared/concept"
	"regintel/shared/graph"
)

//go:embed dataset.schema.json
var schemaJSON []byte

// OfficialHosts are the only sites a value or concept of the dataset may
// cite (each with its subdomains): tax authorities, government departments,
// the public information service and the statute books.
var OfficialHosts = []string{
	"revenue.ie",
	"gov.ie",
	"citizensinformation.ie",
	"irishstatutebook.ie",
	"oireachtas.ie",
	"revisedacts.lawreform.ie",
	"gov.uk",
	"legislation.gov.uk",
	"hmrc.gov.uk",
	"eur-lex.europa.eu",
}

// IsOfficialURL reports whether raw is an https address on an official host.
func IsOfficialURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.User != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	return slices.ContainsFunc(OfficialHosts, func(h string) bool { return host == h || strings.HasSuffix(host, "."+h) })
}

var compiledSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("dataset.schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("dataset.schema.json")
})

// checkSchema validates the raw document against dataset.schema.json.
func checkSchema(data []byte) error {
	sch, err := compiledSchema()
	if err != nil {
		return fmt.Errorf("schema does not compile: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if err := sch.Validate(doc); err != nil {
		return fmt.Errorf("does not match its schema: %w", err)
	}
	return nil
}

// seriesPattern is <DOMAIN>:<JURISDICTION>:<KIND>:<LABEL>:<NAME>.
var seriesPattern = regexp.MustCompile(`^[A-Z0-9_-]+:[A-Z0-9_-]+:[A-Z0-9_-]+:[A-Z]+:[A-Z0-9_]+$`)

// validate checks what the schema cannot: canonical and unique ids, labels
// and relationship types on the graph's whitelists, official sources, and
// for every series ordered, non-overlapping periods with statuses that fit.
func (ds Dataset) validate() error {
	concepts := map[string]concept.Concept{}
	for _, c := range ds.Concepts {
		if err := checkConcept(c); err != nil {
			return err
		}
		if err := checkAliasSources(c, ds.AliasSources[c.ID]); err != nil {
			return err
		}
		if _, dup := concepts[c.ID]; dup {
			return fmt.Errorf("duplicate id %q", c.ID)
		}
		concepts[c.ID] = c
	}
	seen := map[string]bool{}
	for id := range concepts {
		seen[id] = true
	}
	for _, n := range ds.Nodes {
		if n.ID == "" || seen[n.ID] {
			return fmt.Errorf("node %q: empty or duplicate id", n.ID)
		}
		seen[n.ID] = true
		if err := checkNode(n, concepts); err != nil {
			return fmt.Errorf("node %q: %w", n.ID, err)
		}
	}
	for series, members := range ds.seriesMembers() {
		if err := checkSeries(ds.Nodes, members); err != nil {
			return fmt.Errorf("series %s: %w", series, err)
		}
	}
	return checkEdges(ds.Edges, seen)
}

func checkConcept(c concept.Concept) error {
	if want := concept.CanonicalID(c.Domain, c.Jurisdiction, c.Kind); c.ID != want {
		return fmt.Errorf("concept %q: id is not canonical (want %q)", c.ID, want)
	}
	if c.PrefLabel == "" || c.Definition == "" || len(c.SourceURLs) == 0 {
		return fmt.Errorf("concept %q: prefLabel, definition and sourceUrls are required", c.ID)
	}
	for _, u := range c.SourceURLs {
		if !IsOfficialURL(u) {
			return fmt.Errorf("concept %q: source %q is not on an official host", c.ID, u)
		}
	}
	return nil
}

// checkAliasSources: every alt label of a concept names where it comes from
// (a page that uses the name, or a common usage), so no alias rests only on
// the wording of an eval question; and no source is given for a name the
// concept does not carry.
func checkAliasSources(c concept.Concept, sources map[string]string) error {
	for _, alias := range c.AltLabels {
		if strings.TrimSpace(sources[alias]) == "" {
			return fmt.Errorf("concept %q: alias %q has no aliasSources entry", c.ID, alias)
		}
	}
	for alias := range sources {
		if !slices.Contains(c.AltLabels, alias) {
			return fmt.Errorf("concept %q: aliasSources names %q, which is not one of its altLabels", c.ID, alias)
		}
	}
	return nil
}

// checkNode checks one node on its own; a fact node must be a well-formed
// member of a series of an existing concept, with an official source.
func checkNode(n DetailNode, concepts map[string]concept.Concept) error {
	if !graph.IsNodeLabel(n.Label) || n.Label == "Concept" || n.Label == "Label" {
		return fmt.Errorf("label %q is not a detail label", n.Label)
	}
	if _, isFact := factRelationships[n.Label]; !isFact {
		if n.Series != "" {
			return fmt.Errorf("a %s node is not a fact and has no series", n.Label)
		}
		return nil
	}
	if !seriesPattern.MatchString(n.Series) || strings.Split(n.Series, ":")[3] != strings.ToUpper(n.Label) {
		return fmt.Errorf("series %q is not <concept id>:%s:<NAME>", n.Series, strings.ToUpper(n.Label))
	}
	owner, ok := concepts[seriesConcept(n.Series)]
	if !ok {
		return fmt.Errorf("series %q: no concept %s in the dataset", n.Series, seriesConcept(n.Series))
	}
	if owner.Jurisdiction != n.Jurisdiction {
		return fmt.Errorf("jurisdiction %s differs from its concept's %s", n.Jurisdiction, owner.Jurisdiction)
	}
	if want := n.Series + ":" + cmp.Or(n.ValidFrom, undatedSuffix); n.ID != want {
		return fmt.Errorf("id is not canonical (want %q)", want)
	}
	switch n.Confidence {
	case "", ConfidenceOfficial:
		if !IsOfficialURL(n.SourceURL) {
			return fmt.Errorf("source %q is not on an official host", n.SourceURL)
		}
	case ConfidenceCorroborated:
		if err := checkCorroborated(n); err != nil {
			return err
		}
	default:
		return fmt.Errorf("confidence %q is not %s or %s", n.Confidence, ConfidenceOfficial, ConfidenceCorroborated)
	}
	if n.ValidFrom != "" && n.ValidTo != "" && n.ValidTo < n.ValidFrom {
		return fmt.Errorf("validTo %s is before validFrom %s", n.ValidTo, n.ValidFrom)
	}
	if !slices.Contains(graph.FactStatuses, n.Status) || !statusAgrees(n) {
		return fmt.Errorf("status %q does not fit its dates as verified on %s (want %s)", n.Status, n.LastVerifiedAt, derivedStatus(n))
	}
	return nil
}

// Confidence levels of a value: stated on an official page, or (where no
// official page could be found) corroborated by two independent secondary
// sources.
const (
	ConfidenceOfficial     = "official"
	ConfidenceCorroborated = "corroborated"
)

// checkCorroborated: a corroborated value names two https sources on
// different hosts, the first of which is its sourceUrl.
func checkCorroborated(n DetailNode) error {
	if len(n.CorroboratingURLs) < 2 || n.CorroboratingURLs[0] != n.SourceURL {
		return fmt.Errorf("a corroborated value needs two corroboratingUrls, the first being its sourceUrl")
	}
	hosts := map[string]bool{}
	for _, raw := range n.CorroboratingURLs {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "https" || u.Hostname() == "" {
			return fmt.Errorf("corroborating source %q is not an https address", raw)
		}
		hosts[strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")] = true
	}
	if len(hosts) < 2 {
		return fmt.Errorf("the corroborating sources of a value must be on two different hosts")
	}
	return nil
}

// checkSeries checks the values of one series in validFrom order: only the
// first may be undated (its start not stated), each value starts the day
// after the previous one ends (or says why not), and at most one is in force.
func checkSeries(nodes []DetailNode, members []int) error {
	inForce := 0
	for k, i := range members {
		n := nodes[i]
		if n.Status == "in_force" {
			inForce++
		}
		if n.ValidFrom == "" && k > 0 {
			return fmt.Errorf("%s is undated but follows another value", n.ID)
		}
		if k == 0 {
			continue
		}
		prev := nodes[members[k-1]]
		switch {
		case prev.ValidFrom == n.ValidFrom:
			return fmt.Errorf("%s and another value both start on %s", n.ID, n.ValidFrom)
		case prev.ValidTo == "":
			return fmt.Errorf("%s is open-ended but %s follows it", prev.ID, n.ID)
		case prev.ValidTo >= n.ValidFrom:
			return fmt.Errorf("%s (to %s) overlaps %s", prev.ID, prev.ValidTo, n.ID)
		case dayAfter(prev.ValidTo) != n.ValidFrom && n.GapReason == "":
			return fmt.Errorf("gap between %s (to %s) and %s with no gapReason", prev.ID, prev.ValidTo, n.ID)
		}
	}
	if inForce > 1 {
		return fmt.Errorf("%d values in force", inForce)
	}
	return nil
}

func checkEdges(edges []Edge, nodes map[string]bool) error {
	seen := map[Edge]bool{}
	for _, e := range edges {
		if !graph.IsRelationshipType(e.Type) {
			return fmt.Errorf("edge %s-%s->%s: relationship type not whitelisted", e.From, e.Type, e.To)
		}
		if !nodes[e.From] || !nodes[e.To] {
			return fmt.Errorf("edge %s-%s->%s: unknown endpoint", e.From, e.Type, e.To)
		}
		if seen[e] {
			return fmt.Errorf("edge %s-%s->%s: duplicate", e.From, e.Type, e.To)
		}
		seen[e] = true
	}
	return nil
}
