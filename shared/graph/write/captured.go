package write

import (
	"strings"

	"regintel/shared/concept"
	"regintel/shared/memo"
	"regintel/shared/pii"
)

// CheckCaptured checks a captured concept exactly as the model produced it,
// before anything (its id, its resolution) is computed from it: every field
// must be free of personal data in its raw form and in every form derived
// from it, and the concept must pass the allowlist (checkAllowlist). It
// returns nil or a *Rejection that names the field and the kind of data
// but never the value or the concept's id. It is pure: no I/O.
func CheckCaptured(c concept.Concept) error {
	fields := []struct {
		name   string
		values []string
	}{
		{"id", []string{c.ID}},
		{"domain", []string{c.Domain}},
		{"kind", []string{c.Kind}},
		{"jurisdiction", []string{c.Jurisdiction}},
		{"pref_label", []string{c.PrefLabel}},
		{"alt_labels", c.AltLabels},
		{"definition", []string{c.Definition}},
		{"source_urls", c.SourceURLs},
	}
	for _, f := range fields {
		// Source URLs hold dated paths and query strings: only the number
		// detectors apply to them.
		kinds := pii.AllKinds
		if f.name == "source_urls" {
			kinds = GuardedPIIKinds
		}
		for _, v := range f.values {
			if kind, found := findPIIIn(v, kinds); found {
				return &Rejection{Label: "Concept", Field: f.name, Reason: ReasonPIIValue, PIIKind: kind}
			}
		}
	}
	if rej := checkAllowlist(c); rej != nil {
		return rej
	}
	return nil
}

// checkAllowlist checks the concept's vocabulary and each of its texts.
func checkAllowlist(c concept.Concept) *Rejection {
	if rej := checkVocabulary(c); rej != nil {
		return rej
	}
	if rej := checkConceptText("pref_label", c.PrefLabel); rej != nil {
		return rej
	}
	for _, l := range c.AltLabels {
		if rej := checkConceptText("alt_labels", l); rej != nil {
			return rej
		}
	}
	if c.Definition == "" {
		return nil
	}
	return checkConceptText("definition", c.Definition)
}

// findPII looks for guarded personal data in s as the detectors read it
// (pii.Normalize: entities and percent-escapes decoded, tag characters
// read, numbers and the signs of an address in words read), and again
// with "_", ":" and "+" read as spaces (how a canonical id part or a
// query string joins words, which the detectors would otherwise take for
// one word).
func findPII(s string) (pii.Kind, bool) { return findPIIIn(s, GuardedPIIKinds) }

// foundPII remembers findPIIIn's answers on short texts (see memo).
var foundPII = memo.New[pii.Kind](8192)

// findPIIIn is findPII for the given kinds.
func findPIIIn(s string, kinds []pii.Kind) (pii.Kind, bool) {
	if len(s) > memo.ShortText {
		return findPIIOnce(s, kinds)
	}
	key := pii.MemoKey(s, kinds)
	if kind, ok := foundPII.Get(key); ok {
		return kind, kind != ""
	}
	kind, found := findPIIOnce(s, kinds)
	foundPII.Put(key, kind)
	return kind, found
}

func findPIIOnce(s string, kinds []pii.Kind) (pii.Kind, bool) {
	if kind, found := pii.Contains(s, kinds...); found {
		return kind, true
	}
	if joined := wordJoiners.Replace(pii.Normalize(s)); joined != s {
		return pii.Contains(joined, kinds...)
	}
	return "", false
}

// wordJoiners are read as spaces in the second reading.
var wordJoiners = strings.NewReplacer("_", " ", ":", " ", "+", " ")
