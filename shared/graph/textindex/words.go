// Package textindex is a small in-process full-text index of the graph's
// official text: each concept's label, aliases and definition and the labels
// and scopes of its facts. Grounding asks it which concepts a question's
// words name before the one graph read, so a question that says
// "employers' charges" or "pensions" finds a concept whose label or alias
// it does not repeat word for word. The index is fed from the graph's change
// feed and never reads the graph on a turn's path.
//
// It is written here rather than taken from a search library: the corpus is
// a few hundred short texts, the matching needs control over possessives,
// acronyms and scope words that a general stemmer does not give, and the
// module gains no dependency.
package textindex

import (
	"strings"
	"unicode"
)

// Words returns the distinct stems of text's words, in order of first
// appearance, leaving out stop words, single letters and numbers.
func Words(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range tokens(text) {
		s := Stem(w)
		if s == "" || seen[s] || stopWords[s] || isNumber(s) || len([]rune(s)) < 2 {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// tokens splits text into lower-case runs of letters and digits; an
// apostrophe ends a word, so "employer's" reads as "employer" and "s".
func tokens(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Stem reduces an English word to the stem its inflected forms share:
// plurals ("charges", "pensions", "taxes", "allowances"), and -ing and -ed
// forms ("heating", "registered"). Words of three letters or fewer (VAT,
// USC, tax) are kept whole. Both the index and the question go through it,
// so a stem need only be consistent, not a dictionary word.
func Stem(word string) string {
	w := strings.ToLower(word)
	if len(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case hasAnySuffix(w, "xes", "ches", "shes", "zes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !hasAnySuffix(w, "ss", "us", "is"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) >= 7:
		w = w[:len(w)-3]
	case strings.HasSuffix(w, "ed") && len(w) >= 6 && !strings.HasSuffix(w, "eed"):
		w = w[:len(w)-2]
	}
	return w
}

func hasAnySuffix(w string, suffixes ...string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}

func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// stopWords are stems that say nothing about which rule a question is
// about: function words, question words and calendar words (the as-of date
// is read apart).
var stopWords = func() map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(`a an the of on in at to for from by with as and or but not no
		is are was were be been being am do doe did done has have had will would shall should can could may might must
		what which who whom whose when where why how much many much
		i me my mine we us our you your he him his she her it its they them their there here this that these those
		about after before since during until between into over under than then so if
		any some all each every other another such same own more most less least very just also only
		per get got pay paid give given apply
		today now current currently still yet ago last next previous this year month week day
		january february march april may june july august september october november december
		please tell know want need like`) {
		out[Stem(w)] = true
	}
	return out
}()
