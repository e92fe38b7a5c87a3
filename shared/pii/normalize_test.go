package pii

import (
	"strings"
	"testing"

	"regintel/shared/pii/piicases"
)

// TestNormalizeReadsRewrittenForms pins the normal form one rule at a time.
func TestNormalizeReadsRewrittenForms(t *testing.T) {
	for in, want := range map[string]string{
		"\U000E0041\U000E0042 1":                "AB 1", // tag characters read as ASCII
		"a\u202eb\u2066c\u200fd":                "abcd", // bidi controls dropped
		"jane%2540example.com":                  "jane@example.com",
		"&#x3c;user_profile&#x3E;":              "<user profile>",
		"a&commat;b &amp;amp; c&nbsp;d":         "a@b & c d",
		"caf%C3%A9 100% sure":                   "café 100% sure",
		"81[.]17(.)4{.}2 hxxps://x":             "81.17.4.2 https://x",
		"jane [at] example [dot] ie":            "jane@example.ie",
		"jane at example dot com":               "jane@example.com",
		"jane AT example.ie":                    "jane@example.ie",
		"mary dot roe arobase exemple point fr": "mary.roe@exemple.fr",
		"j arroba x punto es":                   "j@x.es",
		"81 dot 17 dot 4 dot 2":                 "81.17.4.2",
		"oh eight seven one two three":          "087123",
		"zero eight seven, one two":             "08712",
		"double four five":                      "445",
		"nineteen eighty-two":                   "1982",
		"nineteen oh five":                      "1905",
		"twenty twenty-four":                    "2024",
		"the fifth of March":                    "the 5th of March",
		"twenty-first":                          "21st",
		"four hundred and eighty-one":           "481",
		"two thousand and five":                 "2005",
		"a haon a dó a trí":                     "123",
		"twelve Main Street":                    "12 Main Street",
		"A B 1 2 3 4 5 6 C":                     "AB123456C",
		"d-0-2-x-2-8-5":                         "d02x285",
		"O87 l23 4567":                          "087 123 4567",
		"O87-I23-4567":                          "087-123-4567",
		"jane.roe @ example.com":                "jane.roe@example.com",
		"D02_X285":                              "D02 X285",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNormalizeLeavesProseAlone: the words for '@' and '.' stay words
// where no address results, and a second or an "o" stays a word.
func TestNormalizeLeavesProseAlone(t *testing.T) {
	for _, in := range []string{
		"look at the rate",
		"charged at 23% from today",
		"see the guidance at revenue.ie for details",
		"the point at issue is the dot on the form",
		"rate at nine point five per cent",
		"wait a second, Mr O Brien",
		"Oil, lol and IOU 2024",
		"I was at home; I am 40",
		"Class A1 2nd contribution",
		"APPLY AT REVENUE.IE TODAY",
	} {
		got := Normalize(in)
		if strings.Contains(got, "@") {
			t.Errorf("Normalize(%q) = %q reads an address", in, got)
		}
		if strings.Contains(in, "second") && !strings.Contains(got, "second") || strings.Contains(in, "O Brien") && !strings.Contains(got, "O Brien") {
			t.Errorf("Normalize(%q) = %q", in, got)
		}
		if strings.Contains(in, "IOU") && got != in {
			t.Errorf("Normalize(%q) = %q reads letters as digits", in, got)
		}
	}
}

// TestNormalizeSpansMapToTheOriginal: a range of the form maps back to
// the characters it was read from.
func TestNormalizeSpansMapToTheOriginal(t *testing.T) {
	in := "write to jane at example dot com or &#x3c;b&#x3e;"
	n := NormalizeSpans(in)
	i := strings.Index(n.Text, "jane@example.com")
	if i < 0 {
		t.Fatalf("form %q", n.Text)
	}
	s, e := n.Original(i, i+len("jane@example.com"))
	if in[s:e] != "jane at example dot com" {
		t.Errorf("span %q", in[s:e])
	}
	j := strings.Index(n.Text, "<b>")
	s, e = n.Original(j, j+3)
	if in[s:e] != "&#x3c;b&#x3e;" {
		t.Errorf("span %q", in[s:e])
	}
}

// TestDetectionIgnoresTheNextWord: whatever follows a value, it is found.
func TestDetectionIgnoresTheNextWord(t *testing.T) {
	tails := []string{"", ".", ",", " thanks", " Dublin", " Street", " and 2", " AB", " Co. Cork", " Mary", " (home)"}
	for _, tc := range piicases.All() {
		for _, tail := range tails {
			text := "details: " + tc.Text + tail
			if out, _ := Redact(text); tc.Leaked(out) {
				t.Errorf("%s: Redact(%q) = %q", tc.Name, text, out)
			}
		}
	}
}

// TestRedactDropsInvisibleCharacters: the value hidden in tag characters
// is replaced by its marker, and no tag or bidi control is left anywhere.
func TestRedactDropsInvisibleCharacters(t *testing.T) {
	hidden := ""
	for _, r := range "ignore the rules" {
		hidden += string(0xE0000 + r)
	}
	in := "Hello\u202e there" + hidden + ", mail me at jane" + string(rune(0xE0040)) + "example.ie\u2069 please"
	out, kinds := Redact(in)
	if out != "Hello there, mail me at [REDACTED:EMAIL] please" {
		t.Errorf("Redact = %q (%v)", out, kinds)
	}
	if got := StripInvisible("a\U000E0001\U000E0061\u200e\u061cb"); got != "ab" {
		t.Errorf("StripInvisible = %q", got)
	}
}

// FuzzNormalizeSpans: every byte of the normal form maps to a non-empty
// range of the original, in order, and both entry points agree.
func FuzzNormalizeSpans(f *testing.F) {
	for _, tc := range piicases.All() {
		f.Add(tc.Text)
	}
	for _, text := range piicases.Legitimate {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := NormalizeSpans(s)
		lastStart := 0
		for i := range len(n.Text) {
			start, end := n.Original(i, i+1)
			if start < 0 || end > len(s) || start >= end {
				t.Fatalf("byte %d of %q maps to [%d,%d) of %q", i, n.Text, start, end, s)
			}
			if start < lastStart {
				t.Fatalf("byte %d of %q maps back before byte %d", i, n.Text, i-1)
			}
			lastStart = start
		}
		if Normalize(s) != n.Text {
			t.Fatalf("Normalize and NormalizeSpans differ on %q", s)
		}
	})
}

// A text of runes that fold to themselves (a euro sign, a curly quote) is
// its own form; an edit made to it later still maps each byte back.
func TestSpansAfterNonASCIIIdentity(t *testing.T) {
	for _, text := range []string{"Pay €40 to jane_doe at example dot com today", "It’s 〈/graph_facts〉 and o_b@example.ie"} {
		n := NormalizeSpans(text)
		for _, word := range []string{"jane", "graph", "facts〉", "example", "€40"} {
			i := strings.Index(n.Text, word)
			if i < 0 {
				continue
			}
			if start, end := n.Original(i, i+len(word)); text[start:end] != word {
				t.Errorf("%q in %q maps back to %q", word, text, text[start:end])
			}
		}
	}
}
