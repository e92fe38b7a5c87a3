// Package write is the graph write service: the only way anything writes to
// the rules graph. Every write passes the ingress guard first (label and
// relationship whitelist, per-label property whitelist, personal data, and
// for concepts an allowlist of vocabulary, code lists and text shapes), so
// the graph holds public regulatory knowledge only.
package write

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"regintel/shared/concept"
	"regintel/shared/graph"
	"regintel/shared/pii"
	"regintel/shared/sources"
)

// Reason says why the guard rejected a write. It is safe to log and to use
// as a metric dimension: it never contains the offending value.
type Reason string

const (
	ReasonPIIValue            Reason = "pii_value"
	ReasonSensitiveKey        Reason = "sensitive_key"
	ReasonLabelNotAllowed     Reason = "label_not_allowed"
	ReasonRelationNotAllowed  Reason = "relationship_not_allowed"
	ReasonPropertyNotAllowed  Reason = "property_not_allowed"
	ReasonInvalidID           Reason = "invalid_id"
	ReasonValueTooLong        Reason = "value_too_long"
	ReasonUnsupportedValue    Reason = "unsupported_value"
	ReasonInvalidSourceURL    Reason = "invalid_source_url"
	ReasonIDMismatch          Reason = "canonical_id_mismatch"
	ReasonMissingEndpointNode Reason = "missing_endpoint_id"
)

// Rejection describes one rejected write: which item and field, and why. It
// never carries the rejected value. ConceptID is empty when the id itself
// held personal data.
type Rejection struct {
	ConceptID string   `json:"conceptId,omitempty"`
	Label     string   `json:"label,omitempty"`
	Field     string   `json:"field,omitempty"`
	Reason    Reason   `json:"reason"`
	PIIKind   pii.Kind `json:"piiKind,omitempty"`
}

func (r *Rejection) Error() string {
	var b strings.Builder
	b.WriteString("graph write rejected")
	if r.Label != "" {
		b.WriteString(" :" + r.Label)
	}
	if r.ConceptID != "" {
		b.WriteString(" " + r.ConceptID)
	}
	if r.Field != "" {
		b.WriteString(" field " + r.Field)
	}
	b.WriteString(": " + string(r.Reason))
	if r.PIIKind != "" {
		b.WriteString(" (" + string(r.PIIKind) + ")")
	}
	return b.String()
}

// GuardedPIIKinds are the personal-data patterns the guard rejects in string
// values. IP addresses are left out: dotted section numbers look like them
// and regulatory text carries no network addresses worth guarding against.
var GuardedPIIKinds = []pii.Kind{pii.KindEmail, pii.KindPhone, pii.KindIBAN, pii.KindCard, pii.KindPPSN, pii.KindNINO}

// commonNodeProperties may appear on any node.
var commonNodeProperties = []string{
	"id", "pref_label", "alt_labels", "definition", "description", "source_urls",
	"jurisdiction", "domain", "kind", "title",
	"created_at", "updated_at", "last_verified_at", "enrichment_requested_at",
	// Provenance of enriched facts: the official page and the short quote
	// the fact was checked against.
	"source_url", "quote",
	// Valid time of a dated fact and where it came from: the series its
	// values share, ISO dates, status, the source's own identifier.
	"provenance", "series", "valid_from", "valid_to", "status", "official_id",
	// A curated value no official page states: "corroborated", with the two
	// independent secondary pages that agree on it.
	"confidence", "corroborating_urls",
}

// NodeProperties is the per-label property whitelist (in addition to
// commonNodeProperties). Extend it here, in code review, when the schema grows.
var NodeProperties = map[string][]string{
	"Concept":      {"ingestion_status", SourceContentHashesKey},
	"Label":        {"text"},
	"Section":      {"act", "section_number", "url", "summary", "excerpt", "effective_from", "effective_to"},
	"Benefit":      {"amount", "currency", "period", "eligibility", "effective_from", "effective_to"},
	"Relief":       {"amount", "currency", "percent", "period", "lower_amount", "upper_amount", "age", "eligibility", "effective_from", "effective_to"},
	"Rate":         {"value", "percent", "amount", "period", "lower_amount", "upper_amount", "age", "unit", "currency", "band", "applies_to", "effective_from", "effective_to"},
	"Threshold":    {"value", "amount", "unit", "currency", "period", "applies_to", "effective_from", "effective_to"},
	"Timeline":     {"window", "unit", "window_days", "window_months", "window_years", "deadline", "recurrence", "applies_to", "effective_from", "effective_to"},
	"Guidance":     {"url", "publisher", "summary", "published_at"},
	"Jurisdiction": {"code", "name", "parent"},
	"Rule":         {"summary", "effective_from", "effective_to", "applies_to"},
}

// EdgeProperties is the relationship property whitelist (all types).
var EdgeProperties = []string{"created_at", "updated_at", "source_urls", "effective_from", "effective_to", "confidence"}

// Length limits keep chat text and documents out of the graph: a concept
// definition is a sentence or two, not a transcript.
const (
	MaxIDLen    = 200
	MaxLabelLen = 200
	MaxTextLen  = 2000
	MaxURLLen   = 2000
	MaxListLen  = 100
)

// SourceContentHashesKey is the Concept property listing the SHA-256 (lower
// hex) of every source text enrichment already processed. Its values must be
// exactly that format; that check replaces the personal-data scan, whose
// IBAN and phone patterns can match random hex.
const SourceContentHashesKey = "source_content_hashes"

var (
	contentHashPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)
	propertyKeyPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
	canonicalIDPattern = regexp.MustCompile(`^[A-Z0-9_-]+:[A-Z0-9_-]+:[A-Z0-9_-]+$`)
)

// Guard checks writes before anything is sent to the graph. The zero value
// is not usable; use NewGuard.
type Guard struct {
	nodeProps map[string]map[string]bool
	edgeProps map[string]bool
	sources   SourcePolicy
}

// SourcePolicy decides which source URLs the shared graph may hold and in
// which form (sources.Catalog: https, on the official-source allowlist,
// with only the query parameters the host's entry lists).
type SourcePolicy interface {
	SourceURL(raw string) (string, bool)
}

// officialSources is the embedded official-source catalog, the one the
// enrichment fetcher uses.
var officialSources = sync.OnceValue(func() *sources.Catalog {
	c, err := sources.New(sources.Options{})
	if err != nil {
		panic("write: the embedded source catalog does not parse: " + err.Error())
	}
	return c
})

// NewGuard builds a guard from graph.NodeLabels, graph.RelationshipTypes,
// NodeProperties and EdgeProperties, with the official-source catalog as
// its source policy.
func NewGuard() *Guard {
	g := &Guard{nodeProps: map[string]map[string]bool{}, edgeProps: map[string]bool{}, sources: officialSources()}
	for _, label := range graph.NodeLabels {
		allowed := map[string]bool{}
		for _, k := range commonNodeProperties {
			allowed[k] = true
		}
		for _, k := range NodeProperties[label] {
			allowed[k] = true
		}
		g.nodeProps[label] = allowed
	}
	for _, k := range EdgeProperties {
		g.edgeProps[k] = true
	}
	return g
}

// WithSources returns a copy of the guard that takes source URLs from p
// (the enrichment's catalog, which in tests allows a local site).
func (g *Guard) WithSources(p SourcePolicy) *Guard {
	out := *g
	out.sources = p
	return &out
}

// OfficialSourceURLs returns the URLs the graph may hold, in stored form,
// and how many were dropped: a source URL off the official allowlist (a
// look-alike host, plain http) is dropped, not a reason to refuse the
// concept that cites it.
func (g *Guard) OfficialSourceURLs(urls []string) (kept []string, dropped int) {
	for _, raw := range urls {
		u, ok := g.sources.SourceURL(raw)
		if !ok || slices.Contains(kept, u) {
			if !ok {
				dropped++
			}
			continue
		}
		kept = append(kept, u)
	}
	return kept, dropped
}

// CheckConcept checks a concept exactly as it will be written: a :Concept
// node with its properties and one :Label node per alternative label linked
// by HAS_ALT_LABEL, its source URLs reduced to the official ones. The
// concept must already be normalised (its id equal to the canonical id of
// its parts). It returns nil or a *Rejection.
func (g *Guard) CheckConcept(c concept.Concept) error {
	// A source that is not a web address at all, or carries credentials,
	// says the capture is off: the concept is refused. A web address off
	// the allowlist is only left out.
	for _, u := range c.SourceURLs {
		if !isHTTPURL(u) {
			return &Rejection{ConceptID: safeID(c.ID), Label: "Concept", Field: "source_urls", Reason: ReasonInvalidSourceURL}
		}
	}
	c.SourceURLs, _ = g.OfficialSourceURLs(c.SourceURLs)
	if rej := g.checkID(c.ID, "Concept"); rej != nil {
		return rej
	}
	if !canonicalIDPattern.MatchString(c.ID) || c.ID != concept.CanonicalID(c.Domain, c.Jurisdiction, c.Kind) {
		return &Rejection{ConceptID: c.ID, Label: "Concept", Field: "id", Reason: ReasonIDMismatch}
	}
	for _, label := range []string{"Concept", "Label"} {
		if !graph.IsNodeLabel(label) {
			return &Rejection{ConceptID: c.ID, Label: label, Reason: ReasonLabelNotAllowed}
		}
	}
	if !graph.IsRelationshipType("HAS_ALT_LABEL") {
		return &Rejection{ConceptID: c.ID, Field: "HAS_ALT_LABEL", Reason: ReasonRelationNotAllowed}
	}
	props := ConceptProperties(c)
	if err := g.checkProps("Concept", c.ID, props); err != nil {
		return err
	}
	if rej := checkAllowlist(c); rej != nil {
		rej.ConceptID = safeID(c.ID)
		return rej
	}
	return nil
}

// ConceptProperties maps a concept onto the node properties it is stored
// with, so the guard checks the same keys the backend writes.
func ConceptProperties(c concept.Concept) map[string]any {
	props := map[string]any{
		"id":           c.ID,
		"domain":       c.Domain,
		"kind":         c.Kind,
		"jurisdiction": c.Jurisdiction,
		"pref_label":   c.PrefLabel,
	}
	if len(c.AltLabels) > 0 {
		props["alt_labels"] = c.AltLabels
	}
	if c.Definition != "" {
		props["definition"] = c.Definition
	}
	if len(c.SourceURLs) > 0 {
		props["source_urls"] = c.SourceURLs
	}
	return props
}

// CheckNode checks a generic node write. It returns nil or a *Rejection.
func (g *Guard) CheckNode(n graph.NodeWrite) error {
	if !graph.IsNodeLabel(n.Label) {
		return &Rejection{ConceptID: safeID(n.ID), Reason: ReasonLabelNotAllowed}
	}
	if rej := g.checkID(n.ID, n.Label); rej != nil {
		return rej
	}
	if v, ok := n.Props["id"]; ok && v != n.ID {
		return &Rejection{ConceptID: n.ID, Label: n.Label, Field: "id", Reason: ReasonIDMismatch}
	}
	return g.checkProps(n.Label, n.ID, n.Props)
}

// CheckEdge checks a generic relationship write. It returns nil or a
// *Rejection.
func (g *Guard) CheckEdge(e graph.EdgeWrite) error {
	if !graph.IsRelationshipType(e.Type) {
		return &Rejection{ConceptID: safeID(e.FromID), Reason: ReasonRelationNotAllowed}
	}
	for _, id := range []string{e.FromID, e.ToID} {
		if id == "" {
			return &Rejection{ConceptID: safeID(e.FromID), Field: e.Type, Reason: ReasonMissingEndpointNode}
		}
		if rej := g.checkID(id, ""); rej != nil {
			rej.Field = e.Type
			return rej
		}
	}
	for key, value := range e.Props {
		if rej := g.checkProp(key, value, g.edgeProps); rej != nil {
			rej.ConceptID, rej.Field = e.FromID, e.Type+"."+rej.Field
			return rej
		}
	}
	return nil
}

// checkID rejects empty, over-long or PII-bearing ids. A PII-bearing id is
// withheld from the rejection so it is never logged.
func (g *Guard) checkID(id, label string) *Rejection {
	if strings.TrimSpace(id) == "" || len(id) > MaxIDLen {
		return &Rejection{Label: label, Field: "id", Reason: ReasonInvalidID}
	}
	if kind, found := findPII(id); found {
		return &Rejection{Label: label, Field: "id", Reason: ReasonPIIValue, PIIKind: kind}
	}
	return nil
}

func (g *Guard) checkProps(label, id string, props map[string]any) error {
	allowed := g.nodeProps[label]
	// Sorted so the same bad write always reports the same field.
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		if rej := g.checkProp(key, props[key], allowed); rej != nil {
			rej.ConceptID, rej.Label = id, label
			return rej
		}
	}
	return nil
}

func (g *Guard) checkProp(key string, value any, allowed map[string]bool) *Rejection {
	// Sensitive keys first, so "email" is reported as personal data, not just
	// as an unknown property.
	if pii.IsSensitiveKey(key) {
		return &Rejection{Field: safeKey(key), Reason: ReasonSensitiveKey}
	}
	if !propertyKeyPattern.MatchString(key) || !allowed[key] {
		return &Rejection{Field: safeKey(key), Reason: ReasonPropertyNotAllowed}
	}
	return g.checkValue(key, value)
}

// checkValue checks an allowed property's value: scalars pass, strings and
// lists of them are checked one string at a time.
func (g *Guard) checkValue(key string, value any) *Rejection {
	switch v := value.(type) {
	case nil, bool, int, int32, int64, uint32, float32, float64, time.Time:
		return nil
	case string:
		return g.checkString(key, v)
	case []string:
		if len(v) > MaxListLen {
			return &Rejection{Field: key, Reason: ReasonValueTooLong}
		}
		for _, s := range v {
			if rej := g.checkString(key, s); rej != nil {
				return rej
			}
		}
		return nil
	case []any:
		if len(v) > MaxListLen {
			return &Rejection{Field: key, Reason: ReasonValueTooLong}
		}
		for _, item := range v {
			switch iv := item.(type) {
			case string:
				if rej := g.checkString(key, iv); rej != nil {
					return rej
				}
			case bool, int, int64, float64:
			default:
				return &Rejection{Field: key, Reason: ReasonUnsupportedValue}
			}
		}
		return nil
	case []int64, []float64:
		return nil
	default:
		// Maps and structs cannot be stored as graph properties, and could
		// smuggle anything past the key whitelist.
		return &Rejection{Field: key, Reason: ReasonUnsupportedValue}
	}
}

// checkString checks one string of property key: its length, the shape of
// a content hash, that a URL is a registered source, and that it holds no
// personal data.
func (g *Guard) checkString(key, s string) *Rejection {
	limit := MaxTextLen
	if key == "pref_label" || key == "alt_labels" || key == "text" {
		limit = MaxLabelLen
	}
	if len(s) > limit {
		return &Rejection{Field: key, Reason: ReasonValueTooLong}
	}
	if key == SourceContentHashesKey {
		if !contentHashPattern.MatchString(s) {
			return &Rejection{Field: key, Reason: ReasonUnsupportedValue}
		}
		return nil
	}
	if key == "source_urls" || key == "url" || key == "source_url" {
		if stored, ok := g.sources.SourceURL(s); !ok || stored != s {
			return &Rejection{Field: key, Reason: ReasonInvalidSourceURL}
		}
	}
	// Secondary sources are off the official list by definition, but must
	// still be plain web addresses.
	if key == "corroborating_urls" && (!isHTTPURL(s) || !strings.HasPrefix(s, "https://")) {
		return &Rejection{Field: key, Reason: ReasonInvalidSourceURL}
	}
	if key == "confidence" && s != "official" && s != "corroborated" {
		return &Rejection{Field: key, Reason: ReasonUnsupportedValue}
	}
	if kind, found := findPII(s); found {
		return &Rejection{Field: key, Reason: ReasonPIIValue, PIIKind: kind}
	}
	return nil
}

func isHTTPURL(s string) bool {
	if len(s) > MaxURLLen {
		return false
	}
	u, err := url.Parse(s)
	// Credentials in a URL are personal data in their own right.
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.User == nil
}

// safeID returns id when it holds no personal data, else "".
func safeID(id string) string {
	if _, found := findPII(id); found || len(id) > MaxIDLen {
		return ""
	}
	return concept.LogID(id)
}

// safeKey returns a property key for logs; a key that is itself odd
// (over-long or holding personal data) is summarised.
func safeKey(key string) string {
	if len(key) > 64 {
		return fmt.Sprintf("<key of %d bytes>", len(key))
	}
	if _, found := findPII(key); found {
		return "<key withheld>"
	}
	return key
}
