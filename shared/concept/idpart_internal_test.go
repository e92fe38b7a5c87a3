package concept

import (
	"regexp"
	"strings"
	"testing"
)

// The rules IDPart and collapseSpace state, as expressions: the loops
// must read every text as these do.
var (
	refSpace      = regexp.MustCompile(`\s+`)
	refDisallowed = regexp.MustCompile(`[^A-Za-z0-9_-]`)
	refRepeated   = regexp.MustCompile(`_+`)
)

func refIDPart(s, fallback string) string {
	s = strings.TrimSpace(s)
	s = refSpace.ReplaceAllString(s, "_")
	s = refDisallowed.ReplaceAllString(s, "_")
	s = strings.ToUpper(refRepeated.ReplaceAllString(s, "_"))
	if s == "" || s == "_" {
		return fallback
	}
	return s
}

var idPartSamples = []string{"", " ", "_", "__", "vat", " Value added  tax ", "a__b", "état civil", "A-B_c", "x\u00a0y", "\tq\n", "ß", "rate 13.5%", "\xff\xfe", "a_ _b", "-", "_a_"}

func TestIDPartReadsAsItsRules(t *testing.T) {
	for _, s := range idPartSamples {
		if got, want := IDPart(s, "F"), refIDPart(s, "F"); got != want {
			t.Errorf("IDPart(%q) = %q, want %q", s, got, want)
		}
		if got, want := collapseSpace(s), strings.TrimSpace(refSpace.ReplaceAllString(s, " ")); got != want {
			t.Errorf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzIDPart(f *testing.F) {
	for _, s := range idPartSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := IDPart(s, "F"), refIDPart(s, "F"); got != want {
			t.Errorf("IDPart(%q) = %q, want %q", s, got, want)
		}
		if got, want := collapseSpace(s), strings.TrimSpace(refSpace.ReplaceAllString(s, " ")); got != want {
			t.Errorf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
	})
}
