package graph

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"
	"unicode"

	"regintel/shared/concept"
	"regintel/shared/jurisdiction"
)

// Fact is one detail node one hop from a concept: a rate, threshold,
// deadline, guidance... Its Properties and SourceURLs may be shared with
// the store that read it (the memory store remembers what it chose): read
// them, and copy them before changing them.
type Fact struct {
	NodeID         string         `json:"nodeId"`
	Kind           string         `json:"kind"`         // node label: Rate, Threshold, Timeline, Guidance, Rule, Section, Benefit, Relief
	Label          string         `json:"label"`        // pref_label (or the id when absent)
	Relationship   string         `json:"relationship"` // e.g. HAS_RATE
	Properties     map[string]any `json:"properties"`   // its values (percent, amount, currency, period, ...), without bookkeeping props
	SourceURLs     []string       `json:"sourceUrls"`   // the fact's own, else the concept's
	LastVerifiedAt time.Time      `json:"lastVerifiedAt"`
	UpdatedAt      time.Time      `json:"updatedAt"`
	// Valid time, as the source states it: ISO dates (YYYY-MM-DD). ValidTo
	// is "" while the value is in force; ValidFrom is "" for an undated
	// fact (the source states no effective date; none is invented).
	ValidFrom string `json:"validFrom,omitempty"`
	ValidTo   string `json:"validTo,omitempty"`
	// Status is one of FactStatuses.
	Status string `json:"status,omitempty"`
	// OfficialID is the source's own identifier where one exists: an Irish
	// Statute Book ELI, a legislation.gov.uk URI, a Revenue eBrief number.
	OfficialID string `json:"officialId,omitempty"`
	// Series names every dated value of one rate or threshold: a change
	// closes one node of the series and adds another.
	Series string `json:"series,omitempty"`
	// Neighbour is true for a value of the series valid near the as-of
	// date but not on it (the one before or after a change within a year).
	Neighbour bool `json:"neighbour,omitempty"`
	// Confidence is "corroborated" for a value no official page states
	// (SourceURLs are then the two secondary pages that agree on it);
	// empty for an official value.
	Confidence string `json:"confidence,omitempty"`
}

// FactStatuses are the life stages of a dated fact.
var FactStatuses = []string{"announced", "enacted", "in_force", "superseded"}

// GroundedConcept is a concept in scope for a turn with its facts.
type GroundedConcept struct {
	Node Node
	// Facts are the official facts valid on the as-of date, newest first,
	// then the neighbouring values of series that changed within a year of
	// it (Neighbour); at most GroundingQuery.MaxFactsPerConcept.
	Facts []Fact
	// Mentioned is true when the concept was found by its label/alias in
	// Text, or is one of the query's Candidates (not only active).
	Mentioned bool
}

// GroundingQuery says which concepts are in scope for a turn.
type GroundingQuery struct {
	ActiveIDs []string // the conversation's active concepts, in their order
	// Text is the user's message: official concepts whose pref_label or an
	// official alias appears in it as a whole word (case-insensitive) are in
	// scope too.
	Text string
	// Candidates are official concepts a text index (graph/textindex)
	// found for Text by its words, best first, picked before the read:
	// they are in scope as mentioned concepts after those Text names by
	// label or alias, within Jurisdictions like them.
	Candidates []string
	// Jurisdictions, when non-empty, limits mentioned concepts to these +
	// GLOBAL (+ EU for EU member states); active ones are always included.
	Jurisdictions      []string
	MaxFactsPerConcept int // default DefaultMaxFactsPerConcept
	// AsOf is the date the question is about: facts valid on it are
	// returned, with neighbours changed within a year. Zero means today.
	AsOf time.Time
	// AsOfEnd, when set, is a second date the question is about (the far
	// end of a range it names): facts valid on it are returned too, after
	// those valid on AsOf.
	AsOfEnd time.Time
}

// DefaultMaxFactsPerConcept applies when GroundingQuery.MaxFactsPerConcept is 0.
const DefaultMaxFactsPerConcept = 8

// GroundingReader reads the concepts in scope with their facts in ONE round
// trip (one Cypher query on Bolt; one lock on memory).
type GroundingReader interface {
	// Ground returns the active concepts first (in ActiveIDs order), then
	// the mentioned ones (in order of first mention), then the candidates
	// not otherwise found (in the query's order).
	Ground(ctx context.Context, q GroundingQuery) ([]GroundedConcept, error)
}

// SeriesReader reads every stored value of the given fact series (nodes
// whose series property is one of them), in one round trip, so a new value
// can close the old one instead of overwriting it. A name ending in "*"
// reads every series with that prefix (a table of bands read whole).
type SeriesReader interface {
	FactSeries(ctx context.Context, series []string) ([]Node, error)
}

// SeriesPrefixes splits FactSeries names into exact names and prefixes
// (the names that end in "*", without it).
func SeriesPrefixes(series []string) (exact, prefixes []string) {
	for _, s := range series {
		if p, ok := strings.CutSuffix(s, "*"); ok {
			prefixes = append(prefixes, p)
		} else {
			exact = append(exact, s)
		}
	}
	return exact, prefixes
}

// SeriesMatch reports whether name is one of the FactSeries names, or
// starts with one that ends in "*".
func SeriesMatch(series []string, name string) bool {
	for _, s := range series {
		if p, ok := strings.CutSuffix(s, "*"); ok {
			if strings.HasPrefix(name, p) {
				return true
			}
		} else if s == name {
			return true
		}
	}
	return false
}

// ConceptResolver resolves captured concepts read-only, ONE round trip for
// the batch. Rules in order: an existing node with the same (domain, kind,
// jurisdiction); else one whose normalised pref_label or alias equals the
// captured pref_label or one of its alt labels, within the same
// jurisdiction (so VEHICLE_REG:IE:VRT labelled "VRT" resolves to TAX:IE:VRT);
// else the canonical id. Returns one id per input, same order.
type ConceptResolver interface {
	ResolveConcepts(ctx context.Context, concepts []concept.Concept) ([]string, error)
}

// ConceptReader is the read side concept resolution and enrichment need,
// without any way to write.
type ConceptReader interface {
	Reader
	ConceptResolver
	// HasUsefulDetail: see ConceptStore.
	HasUsefulDetail(ctx context.Context, id string, freshSince time.Time) (bool, error)
}

// SchemaApplier creates the graph's constraints and indexes; applying them
// again is harmless.
type SchemaApplier interface {
	ApplySchema(ctx context.Context) error
}

// Store is the whole backend contract both graph/memory and graph/bolt
// satisfy. Only the write service (graph/write) and start-up code hold one;
// everything else gets a narrower interface.
type Store interface {
	Reader
	GroundingReader
	ConceptResolver
	ChangeReader
	ConceptStore
	Writer
	SeriesReader
	SchemaApplier
}

// FactKinds are the node labels a fact may carry.
var FactKinds = []string{"Rate", "Threshold", "Timeline", "Guidance", "Rule", "Section", "Benefit", "Relief"}

// FactKind returns the first fact label among labels, or "".
func FactKind(labels []string) string {
	for _, k := range FactKinds {
		if slices.Contains(labels, k) {
			return k
		}
	}
	return ""
}

// bookkeepingProps are stored alongside a fact's values but are not values
// themselves; Fact carries the useful ones in their own fields.
var bookkeepingProps = []string{
	"id", "pref_label", "created_at", "updated_at", "last_verified_at",
	"enrichment_requested_at", "source_urls", "source_url", "source_content_hashes",
	"valid_from", "valid_to", "status", "series", "official_id", ProvenanceKey,
	"confidence", "corroborating_urls",
}

// NewFact builds a fact from a detail node's stored properties (timestamps
// as epoch ms, lists as []string) and the edge that reaches it. Source URLs
// and the verification time fall back to the concept's own.
func NewFact(id, kind, relationship string, props map[string]any, conceptProps map[string]any) Fact {
	f := FactTimes(id, props)
	f.Kind, f.Relationship, f.Properties = kind, relationship, make(map[string]any, len(props))
	for k, v := range props {
		if slices.Contains(bookkeepingProps, k) {
			continue
		}
		if list, ok := v.([]string); ok {
			v = slices.Clone(list) // the fact is the caller's to change
		}
		f.Properties[k] = v
	}
	f.Label, _ = props["pref_label"].(string)
	if f.Label == "" {
		f.Label = id
	}
	f.SourceURLs = sourceURLs(props)
	if len(f.SourceURLs) == 0 {
		f.SourceURLs = sourceURLs(conceptProps)
	}
	verified, ok := props["last_verified_at"].(int64)
	if !ok {
		verified, ok = conceptProps["last_verified_at"].(int64)
	}
	if ok {
		f.LastVerifiedAt = TimeFromTimestamp(verified)
	}
	f.OfficialID, _ = props["official_id"].(string)
	if confidence, _ := props["confidence"].(string); confidence == ConfidenceCorroborated {
		f.Confidence = confidence
		f.SourceURLs = stringList(props["corroborating_urls"])
	}
	return f
}

// FactTimes is the part of a fact SelectFacts reads (its id, update time,
// valid time, status and series), so a store can choose among many facts
// before it builds the few it gives (see NewFact).
func FactTimes(id string, props map[string]any) Fact {
	f := Fact{NodeID: id}
	if ts, ok := props["updated_at"].(int64); ok {
		f.UpdatedAt = TimeFromTimestamp(ts)
	}
	f.ValidFrom, _ = props["valid_from"].(string)
	f.ValidTo, _ = props["valid_to"].(string)
	f.Status, _ = props["status"].(string)
	f.Series, _ = props["series"].(string)
	return f
}

// ConfidenceCorroborated marks a value no official page states, which two
// independent secondary sources agree on.
const ConfidenceCorroborated = "corroborated"

func stringList(v any) []string {
	switch list := v.(type) {
	case []string:
		return list
	case []any:
		out := make([]string, 0, len(list))
		for _, item := range list {
			if s, ok := item.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func sourceURLs(props map[string]any) []string {
	var out []string
	switch v := props["source_urls"].(type) {
	case []string:
		out = append(out, v...)
	case []any:
		for _, item := range v {
			if s, ok := item.(string); ok {
				out = append(out, s)
			}
		}
	}
	if u, ok := props["source_url"].(string); ok && u != "" && !slices.Contains(out, u) {
		out = append(out, u)
	}
	return out
}

// SortFacts orders facts newest first (ties by node id), keeps one fact per
// node and at most limit of them.
func SortFacts(facts []Fact, limit int) []Fact {
	slices.SortStableFunc(facts, func(a, b Fact) int {
		return cmp.Or(b.UpdatedAt.Compare(a.UpdatedAt), strings.Compare(a.NodeID, b.NodeID))
	})
	facts = slices.CompactFunc(facts, func(a, b Fact) bool { return a.NodeID == b.NodeID })
	if len(facts) > limit {
		facts = facts[:limit]
	}
	return facts
}

// MaxFacts is q.MaxFactsPerConcept or its default.
func (q GroundingQuery) MaxFacts() int {
	if q.MaxFactsPerConcept > 0 {
		return q.MaxFactsPerConcept
	}
	return DefaultMaxFactsPerConcept
}

// maxMentionWords bounds the length, in words, of a label found in text.
const maxMentionWords = 8

// MentionCandidates returns the alias-node ids (AltLabelID) of every run of
// up to maxMentionWords whole words in text, mapped to the position of its
// first occurrence. A run is offered twice: its words joined by one space
// ("VAT-registered" offers "vat") and as written ("Directive 2006/112/EC"),
// so a label matches only on word boundaries and never inside a word
// ("VATS" does not offer "vat").
func MentionCandidates(text string) map[string]int {
	words := mentionWords(text)
	// Each word is lowered once; a run's joined form is its words' lowered
	// forms joined by one space, which is what AltLabelID makes of it.
	lowered := make([]string, len(words))
	for k, w := range words {
		lowered[k] = strings.ToLower(text[w.start:w.end])
	}
	out := map[string]int{}
	add := func(id string, pos int) {
		if _, seen := out[id]; !seen {
			out[id] = pos
		}
	}
	for i := range words {
		joined := altLabelPrefix + lowered[i]
		add(joined, i)
		// As written, a run differs from its joined form only once something
		// other than one space separates two of its words.
		oneSpaces := true
		for j := i + 1; j < len(words) && j < i+maxMentionWords; j++ {
			joined += " " + lowered[j]
			add(joined, i)
			oneSpaces = oneSpaces && text[words[j-1].end:words[j].start] == " "
			if !oneSpaces {
				add(AltLabelID(text[words[i].start:words[j].end]), i)
			}
		}
	}
	return out
}

// span is a word's byte range in a text.
type span struct{ start, end int }

// mentionWords are the runs of letters, digits and marks in text.
func mentionWords(text string) []span {
	var words []span
	start := -1
	for i, r := range text {
		word := isMentionRune(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			words = append(words, span{start, i})
			start = -1
		}
	}
	if start >= 0 {
		words = append(words, span{start, len(text)})
	}
	return words
}

// isMentionRune reports whether r belongs to a word of a mention.
func isMentionRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// ScopeJurisdictions widens a conversation's jurisdictions to those whose
// concepts also apply: GLOBAL always, EU for a member state. Empty in,
// empty out (no limit).
func ScopeJurisdictions(jurisdictions []string) []string {
	if len(jurisdictions) == 0 {
		return nil
	}
	out := []string{"GLOBAL"}
	for _, j := range jurisdictions {
		j = strings.ToUpper(strings.TrimSpace(j))
		if j == "" {
			continue
		}
		out = append(out, j)
		if jurisdiction.IsEUMember(j) {
			out = append(out, "EU")
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ResolutionLabelIDs returns the alias-node ids of a captured concept's
// pref_label and alt labels: the names it may be resolved by.
func ResolutionLabelIDs(c concept.Concept) []string {
	var out []string
	for _, name := range append([]string{c.PrefLabel}, c.AltLabels...) {
		if strings.TrimSpace(name) != "" {
			out = append(out, AltLabelID(name))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// NameMatch is an existing concept of the captured concept's jurisdiction
// that carries one of its names.
type NameMatch struct {
	ID        string
	PrefLabel string
}

// ChooseResolution applies the resolution rules to what a store found for
// the normalised concept c: the ids of concepts with its (domain, kind,
// jurisdiction), and the concepts carrying one of its names. Among several
// name matches, one whose pref_label is a captured name wins, then the
// smallest id, so every store picks the same.
func ChooseResolution(c concept.Concept, sameTriple []string, byName []NameMatch) string {
	if len(sameTriple) > 0 {
		if slices.Contains(sameTriple, c.ID) {
			return c.ID
		}
		return slices.Min(sameTriple)
	}
	if len(byName) == 0 {
		return c.ID
	}
	names := ResolutionLabelIDs(c)
	prefMatch := func(m NameMatch) int {
		if slices.Contains(names, AltLabelID(m.PrefLabel)) {
			return 0
		}
		return 1
	}
	best := slices.MinFunc(byName, func(a, b NameMatch) int {
		return cmp.Or(cmp.Compare(prefMatch(a), prefMatch(b)), strings.Compare(a.ID, b.ID))
	})
	return best.ID
}

// CandidatePosition ranks a concept found only as the query's candidate at
// rank: after every concept the text names by label or alias (whose
// position is a word index in the text).
func CandidatePosition(rank int) int { return 1<<30 + rank }
