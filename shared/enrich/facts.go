package enrich

import (
	"net/url"
	"strings"

	"regintel/shared/concept"
	"regintel/shared/graph"
	"regintel/shared/graph/write"
	"regintel/shared/queue"
)

// Slug makes the last part of a deterministic node id: lower-case ASCII
// letters and digits, other runs turned into one "-", at most 60 bytes.
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
		if b.Len() >= 60 {
			break
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// Node ids are deterministic so a second run MERGEs onto the same nodes:
// rates and thresholds are series CONCEPT_ID:RATE:<slug of name> and
// ...:THRESHOLD:..., each value a node of its series (write.FactValueID);
// ...:TIMELINE:<kind>-<slug>,
// ...:SECTION:<slug of section id>, and GUIDANCE:<slug of host and path>
// shared by every concept citing the page.

// RateID is the series of a rate of a concept.
func RateID(conceptID, name string) string { return conceptID + ":RATE:" + Slug(name) }

// ThresholdID is the series of a threshold of a concept.
func ThresholdID(conceptID, name string) string { return conceptID + ":THRESHOLD:" + Slug(name) }

// TimelineID is the id of a timeline node of a concept.
func TimelineID(conceptID, kind, name string) string {
	return conceptID + ":TIMELINE:" + Slug(kind+" "+name)
}

// SectionID is the id of a section node cited by a concept.
func SectionID(conceptID, act, section string) string {
	return conceptID + ":SECTION:" + Slug(act+" "+section)
}

// GuidanceID is the id of the node for an official page.
func GuidanceID(pageURL string) string {
	u, err := url.Parse(pageURL)
	if err != nil {
		return "GUIDANCE:" + Slug(pageURL)
	}
	return "GUIDANCE:" + Slug(u.Host+" "+u.EscapedPath()+" "+u.RawQuery)
}

// TimelineRelationship is the relationship type from a concept to a timeline
// of the given kind.
func TimelineRelationship(kind string) string {
	switch kind {
	case "lookback":
		return "LOOKBACK_WINDOW"
	case "filing_deadline":
		return "FILING_DEADLINE"
	case "payment_deadline":
		return "PAYMENT_DEADLINE"
	case "waiting_period":
		return "WAITING_PERIOD"
	case "claim_window":
		return "CLAIM_WINDOW"
	}
	return "HAS_TIMELINE"
}

// plan is what one extraction turns into: the graph writes, the related
// concepts to resolve first, and what was dropped.
type plan struct {
	nodes []graph.NodeWrite
	// values are the rates and thresholds: new values of their series,
	// recorded without overwriting the ones before.
	values []write.FactValue
	edges  []graph.EdgeWrite
	// related are the related concepts the sources name; officialRelated
	// those whose quote holds their name, which the graph may share.
	related, officialRelated []concept.Concept
	// confirmed is the job's concept named by a verified quote, to be
	// written as official; nil when the sources do not name it.
	confirmed *concept.Concept
	kept      int
	// dropped counts facts whose source is not one of the documents or whose
	// quote is not in it, or that repeat an id.
	dropped int
}

// buildPlan checks every fact's evidence against the documents the model was
// shown and maps the facts that pass onto nodes and edges linked to the
// concept. Facts that fail are dropped: nothing the pages do not say is
// written.
func buildPlan(job queue.EnrichmentRequested, facts Facts, texts map[string]string, contains func(text, quote string) bool) plan {
	b := &planBuilder{job: job, texts: texts, contains: contains, seen: map[string]bool{}, cited: map[string]bool{}}
	b.addRates(facts.Rates)
	b.addThresholds(facts.Thresholds)
	b.addTimelines(facts.Timelines)
	b.addSections(facts.Sections)
	b.addRelatedConcepts(facts.RelatedConcepts)
	b.confirmConcept(facts.Concept)
	b.addGuidance()
	return b.p
}

// planBuilder accumulates one plan; seen catches a fact that repeats an id,
// cited the pages that yielded a fact.
type planBuilder struct {
	job      queue.EnrichmentRequested
	texts    map[string]string
	contains func(text, quote string) bool
	p        plan
	seen     map[string]bool
	cited    map[string]bool
}

// baseProps are the properties every fact node carries. A fact is written
// only with its quote found in a page fetched from the official-source
// catalog, so it is official.
func (b *planBuilder) baseProps(name string, ev Evidence) map[string]any {
	props := map[string]any{"source_url": ev.SourceURL, "quote": strings.TrimSpace(ev.Quote), "jurisdiction": b.job.Jurisdiction, "domain": b.job.Domain,
		graph.ProvenanceKey: string(graph.ProvenanceOfficial)}
	if name != "" {
		props["pref_label"] = strings.TrimSpace(name)
	}
	return props
}

// quoted says whether the quote is in the text of a document the model was
// shown.
func (b *planBuilder) quoted(sourceURL, quote string) bool {
	text, known := b.texts[sourceURL]
	return known && b.contains(text, quote)
}

// add keeps a fact node and its edge from the concept, or drops the fact.
func (b *planBuilder) add(label, id, relType string, ev Evidence, props map[string]any) {
	if !b.quoted(ev.SourceURL, ev.Quote) || strings.HasSuffix(id, ":") || b.seen[id] {
		b.p.dropped++
		return
	}
	b.seen[id] = true
	b.cited[ev.SourceURL] = true
	b.p.kept++
	b.p.nodes = append(b.p.nodes, graph.NodeWrite{Label: label, ID: id, Props: props})
	b.p.edges = append(b.p.edges, graph.EdgeWrite{FromID: b.job.ConceptID, Type: relType, ToID: id, Props: map[string]any{"source_urls": []string{ev.SourceURL}}})
}

func (b *planBuilder) addRates(rates []Rate) {
	for _, r := range rates {
		props := b.baseProps(r.Name, r.Evidence)
		props["percent"] = r.Percent
		setIf(props, "applies_to", r.AppliesTo)
		b.addValue("Rate", RateID(b.job.ConceptID, r.Name), "HAS_RATE", r.Evidence, r.EffectiveFrom, props)
	}
}

func (b *planBuilder) addThresholds(thresholds []Threshold) {
	for _, t := range thresholds {
		props := b.baseProps(t.Name, t.Evidence)
		props["amount"] = t.Amount
		setIf(props, "currency", t.Currency)
		setIf(props, "period", t.Period)
		setIf(props, "applies_to", t.AppliesTo)
		b.addValue("Threshold", ThresholdID(b.job.ConceptID, t.Name), "HAS_THRESHOLD", t.Evidence, t.EffectiveFrom, props)
	}
}

// addValue keeps a rate or threshold as a new value of its series, dated
// only when its quote states the effective date, or drops it like add.
func (b *planBuilder) addValue(label, series, relType string, ev Evidence, effectiveFrom string, props map[string]any) {
	if !b.quoted(ev.SourceURL, ev.Quote) || strings.HasSuffix(series, ":") || b.seen[series] {
		b.p.dropped++
		return
	}
	b.seen[series] = true
	b.cited[ev.SourceURL] = true
	b.p.kept++
	props["series"] = series
	if date := statedDate(ev.Quote, effectiveFrom); date != "" {
		props["valid_from"] = date
	}
	b.p.values = append(b.p.values, write.FactValue{ConceptID: b.job.ConceptID, Relationship: relType, Node: graph.NodeWrite{Label: label, Props: props}})
}

func (b *planBuilder) addTimelines(timelines []Timeline) {
	for _, t := range timelines {
		props := b.baseProps(t.Name, t.Evidence)
		props["kind"], props["window"], props["unit"] = t.Kind, int64(t.Window), t.Unit
		switch t.Unit {
		case "days", "months", "years":
			props["window_"+t.Unit] = int64(t.Window)
		}
		b.add("Timeline", TimelineID(b.job.ConceptID, t.Kind, t.Name), TimelineRelationship(t.Kind), t.Evidence, props)
	}
}

func (b *planBuilder) addSections(sections []Section) {
	for _, s := range sections {
		props := b.baseProps(s.Title, s.Evidence)
		props["section_number"] = s.ID
		setIf(props, "title", s.Title)
		setIf(props, "act", s.Act)
		setIf(props, "excerpt", s.Excerpt)
		b.add("Section", SectionID(b.job.ConceptID, s.Act, s.ID), "CITES", s.Evidence, props)
	}
}

// addRelatedConcepts keeps related concepts to resolve before the write; a
// concept without a jurisdiction is taken to share the job's.
func (b *planBuilder) addRelatedConcepts(related []RelatedConcept) {
	for _, r := range related {
		jurisdiction := r.Jurisdiction
		if strings.TrimSpace(jurisdiction) == "" {
			jurisdiction = b.job.Jurisdiction
		}
		c := concept.Normalize(concept.Concept{Domain: r.Domain, Kind: r.Kind, Jurisdiction: jurisdiction, PrefLabel: r.Name})
		if c.ID == b.job.ConceptID || b.seen[c.ID] || !b.quoted(r.SourceURL, r.Quote) {
			b.p.dropped++
			continue
		}
		b.seen[c.ID] = true
		b.cited[r.SourceURL] = true
		b.p.kept++
		if b.names(r.Quote, r.Name) {
			c.SourceURLs = []string{r.SourceURL}
			b.p.officialRelated = append(b.p.officialRelated, c)
		} else {
			b.p.related = append(b.p.related, c)
		}
		b.p.edges = append(b.p.edges, graph.EdgeWrite{FromID: b.job.ConceptID, Type: "RELATED_TO", ToID: c.ID, Props: map[string]any{"source_urls": []string{r.SourceURL}}})
	}
}

// confirmConcept keeps the job's concept, named as a verified quote names
// it, to be written as official: from then on its name is the graph's,
// shared with every tenant.
func (b *planBuilder) confirmConcept(c ConceptName) {
	name := strings.Join(strings.Fields(c.Name), " ")
	if name == "" || !b.quoted(c.SourceURL, c.Quote) || !b.names(c.Quote, name) {
		return
	}
	b.cited[c.SourceURL] = true
	b.p.confirmed = &concept.Concept{ID: b.job.ConceptID, Domain: b.job.Domain, Kind: b.job.Kind, Jurisdiction: b.job.Jurisdiction,
		PrefLabel: name, SourceURLs: []string{c.SourceURL}}
}

// names reports whether a verified quote contains the name.
func (b *planBuilder) names(quote, name string) bool {
	return strings.TrimSpace(name) != "" && b.contains(quote, name)
}

// addGuidance adds one Guidance node per page that yielded a fact, so the
// graph says where the concept's detail comes from.
func (b *planBuilder) addGuidance() {
	for _, u := range sortedStrings(keys(b.cited)) {
		id := GuidanceID(u)
		host := ""
		if parsed, err := url.Parse(u); err == nil {
			host = parsed.Hostname()
		}
		b.p.nodes = append(b.p.nodes, graph.NodeWrite{Label: "Guidance", ID: id, Props: map[string]any{"url": u, "publisher": host, "jurisdiction": b.job.Jurisdiction,
			graph.ProvenanceKey: string(graph.ProvenanceOfficial)}})
		b.p.edges = append(b.p.edges, graph.EdgeWrite{FromID: b.job.ConceptID, Type: "HAS_GUIDANCE", ToID: id, Props: map[string]any{"source_urls": []string{u}}})
	}
}

func setIf(props map[string]any, key, value string) {
	if v := strings.TrimSpace(value); v != "" {
		props[key] = v
	}
}
