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
// from it. It returns nil or a *Rejection that names the field and the kind
// of data but never the value or the concept's id. It is pure: no I/O.
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
		for _, v := range f.values {
			if kind, found := findPII(v); found {
				return &Rejection{Label: "Concept", Field: f.name, Reason: ReasonPIIValue, PIIKind: kind}
			}
		}
	}
	return nil
}

// findPII looks for guarded personal data in s and in every form derived
// from it, so an encoding cannot hide it: Unicode compatibility forms
// (full-width "＠"), URL and HTML escapes ("%40", "&#64;"), and "_", ":"
// and "+" read as spaces (how a canonical id part or a query string joins
// words, which the detectors would otherwise take for one word).
func findPII(s string) (pii.Kind, bool) {
	for _, form := range derivedForms(s) {
		if kind, found := pii.Contains(form, GuardedPIIKinds...); found {
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
