package pii

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The shape check lets a detector skip text; it must never skip text the
// detector would have matched.
func TestShapeNeverHidesAMatch(t *testing.T) {
	pieces := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", " ", "-", ".", ":", "::", "@", "+", "(0)",
		"IE", "GB", "AB", "T", "W", "a", "x", "fe80", "mail", ".ie", "00353", "087", "4111", "1234567",
		"(", ")", "  ", "_", "é", "ie29", "+353", "(01)", "DE89", "37040044"}
	seeds := []string{
		"jo@example.ie", "+353 87 123 4567", "087 123 4567", "IE29 AIBK 9311 5212 3456 78",
		"4111 1111 1111 1111", "1234567T", "AB 12 34 56 C", "192.168.1.20", "fe80::1ff:fe23:4567:890a", "+353 (1) (234) 5678",
		"born 14 March 1985", "12 Main Street", "Mr Murphy", "PA1234567", "D02 X285", "SW1A 1AA", "191-D-12345",
	}
	texts := append(slices.Clone(seeds), builtTexts(rand.New(rand.NewPCG(13, 1)), pieces, 20000, 24)...)
	matched := map[Kind]int{}
	for _, text := range texts {
		shape := shapeOf(text)
		words := wordShapeOf(text)
		for _, k := range AllKinds {
			if ms := detectors[k](text); len(ms) > 0 {
				matched[k]++
				if hold, known := quickMayHold(k, text); known && !hold || !known && !shape.mayHold(k) {
					t.Fatalf("%s in %q is skipped by the shape check", k, text)
				}
				// Nor may the regions, anchors and digit groups findIn
				// reads hide it.
				if len(findIn(identity(text), map[Kind]bool{k: true}, words)) == 0 {
					t.Fatalf("%s in %q is skipped by the regions findIn reads", k, text)
				}
			}
		}
	}
	for _, k := range AllKinds {
		if matched[k] == 0 {
			t.Errorf("no text matched %s: the check above proved nothing for it", k)
		}
	}
}

// Regulatory prose (rates, years, section numbers, amounts) is the common
// case; the shape check must spare it the number detectors.
func TestShapeSparesRegulatoryProse(t *testing.T) {
	prose := "The standard VAT rate is 23% and the reduced rate 13.5% from 1 March 2024 " +
		"(s. 46(1)(c), VATCA 2010); the threshold is EUR 42,500 for goods. See Revenue's 2025 guidance, part 3.2.1.\n" +
		"Rate: 23%. Deadline: 23:59 on the 19th. Sources: revenue.ie"
	shape := shapeOf(prose)
	// The kinds found by words and cues rather than digit groups have no
	// shape to check; their patterns run on every text.
	for _, k := range []Kind{KindEmail, KindPhone, KindIBAN, KindCard, KindPPSN, KindNINO, KindIP} {
		if shape.mayHold(k) {
			t.Errorf("prose without %s still runs its detector (shape %+v)", k, shape)
		}
	}
	if got := Find(prose); len(got) != 0 {
		t.Errorf("prose matched %v", got)
	}
}

// The counting shortcuts read as the listings and case mappings they stand
// for, on texts built from the pieces numbers and words are made of.
func TestShortcutsReadAsWhatTheyStandFor(t *testing.T) {
	pieces := []string{"0", "7", "12", " ", "  ", "-", ".", "/", "_", "(", ")", "a", "Z", "ab", "SW", "é", "É", "ß", "ǅ", "x1"}
	for _, text := range builtTexts(rand.New(rand.NewPCG(29, 3)), pieces, 20000, 16) {
		most := 0
		for _, c := range digitClusters(text) {
			most = max(most, c.n)
		}
		if got := mostGroupedDigits(text); got != most {
			t.Fatalf("mostGroupedDigits(%q) = %d, clusters say %d", text, got, most)
		}
		if got, want := noneIn(text, 'a', 'z', strings.ToUpper), strings.ToUpper(text) == text; got != want {
			t.Fatalf("noneIn(%q, lower) = %v, ToUpper says %v", text, got, want)
		}
		if got, want := noneIn(text, 'A', 'Z', strings.ToLower), strings.ToLower(text) == text; got != want {
			t.Fatalf("noneIn(%q, upper) = %v, ToLower says %v", text, got, want)
		}
	}
}

// builtTexts are n texts, each of 1 to most pieces drawn by rng.
func builtTexts(rng *rand.Rand, pieces []string, n, most int) []string {
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 1 + rng.IntN(most) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		out[i] = b.String()
	}
	return out
}
