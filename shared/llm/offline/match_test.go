package offline

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Lexicon terms are found as the regular expressions \bTERM\b (acronyms)
// and (?i)\bTERM\b (phrases) find them, on random text built from the
// lexicon's own terms and the characters around words.
func TestWholeWordMatchingEqualsRegexp(t *testing.T) {
	lex := defaultLexicon
	pieces := []string{" ", "  ", "-", "_", ".", ",", "'", "(", ")", "x", "s", "1", "é", "\n"}
	for _, tm := range lex.terms {
		pieces = append(pieces, tm.text, strings.ToUpper(tm.text))
	}
	patterns := make([]*regexp.Regexp, len(lex.terms))
	for i, tm := range lex.terms {
		patterns[i] = regexp.MustCompile(`\b` + regexp.QuoteMeta(tm.text) + `\b`)
		if tm.caseFold {
			patterns[i] = regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(tm.text) + `\b`)
		}
	}
	rng := rand.New(rand.NewPCG(7, 9))
	for range 3000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		folded := lowerASCII(text)
		for i, tm := range lex.terms {
			in := text
			if tm.caseFold {
				in = folded
			}
			var want []int
			for _, loc := range patterns[i].FindAllStringIndex(text, -1) {
				want = append(want, loc[0])
			}
			if got := wholeWordIndexes(in, tm.text); !slices.Equal(got, want) {
				t.Fatalf("%q in %q: got %v, want %v", tm.text, text, got, want)
			}
		}
	}
}

func TestCountWordsIsFieldsLength(t *testing.T) {
	for _, s := range []string{"", " ", "one", " two  words ", "tab\tand\nnew line", "ünï cödé\u00a0nbsp", "v\vf\fr\r"} {
		if got, want := countWords(s), len(strings.Fields(s)); got != want {
			t.Errorf("countWords(%q) = %d, want %d", s, got, want)
		}
	}
}
