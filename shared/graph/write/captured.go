package write

import (
	"html"
	"net/url"
	"strings"

	"golang.org/x/text/unicode/norm"

	"regintel/shared/concept"
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

// findPII looks for guarded personal data in s and in every form derived
// from it, so an encoding cannot hide it: Unicode compatibility forms
// (full-width "＠"), URL and HTML escapes ("%40", "&#64;"), and "_", ":"
// and "+" read as spaces (how a canonical id part or a query string joins
// words, which the detectors would otherwise take for one word).
func findPII(s string) (pii.Kind, bool) { return findPIIIn(s, GuardedPIIKinds) }

// findPIIIn is findPII for the given kinds.
func findPIIIn(s string, kinds []pii.Kind) (pii.Kind, bool) {
	for _, form := range derivedForms(s) {
		if kind, found := pii.Contains(form, kinds...); found {
			return kind, true
		}
	}
	return "", false
}

// wordJoiners are read as spaces in the last derived form.
var wordJoiners = strings.NewReplacer("_", " ", ":", " ", "+", " ")

// derivedForms returns s and the distinct forms derived from it.
func derivedForms(s string) []string {
	forms := []string{s}
	add := func(f string) {
		for _, have := range forms {
			if have == f {
				return
			}
		}
		forms = append(forms, f)
	}
	decoded := norm.NFKC.String(s)
	add(decoded)
	// Escapes may be nested ("%2540"); three rounds undo any real use.
	for range 3 {
		next := html.UnescapeString(decoded)
		if u, err := url.PathUnescape(next); err == nil {
			next = u
		}
		next = norm.NFKC.String(next)
		if next == decoded {
			break
		}
		decoded = next
		add(decoded)
	}
	add(wordJoiners.Replace(decoded))
	add(wordJoiners.Replace(norm.NFKC.String(s)))
	return forms
}
