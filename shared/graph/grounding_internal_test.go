package graph

import (
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
)

// mentionCandidatesByDefinition is MentionCandidates as its comment states
// it: every run's words joined by one space, and the run as written, each
// through AltLabelID.
func mentionCandidatesByDefinition(text string) map[string]int {
	words := mentionWords(text)
	out := map[string]int{}
	add := func(s string, pos int) {
		if _, seen := out[AltLabelID(s)]; !seen {
			out[AltLabelID(s)] = pos
		}
	}
	for i := range words {
		var joined []string
		for j := i; j < len(words) && j < i+maxMentionWords; j++ {
			joined = append(joined, text[words[j].start:words[j].end])
			add(strings.Join(joined, " "), i)
			add(text[words[i].start:words[j].end], i)
		}
	}
	return out
}

func TestMentionCandidatesMatchTheirDefinition(t *testing.T) {
	pieces := []string{"VAT", "vat", "Irish", "İstanbul", "ÉIRE", " ", "  ", "\t", "-", "/", "2006", "112", "EC", "'s", ".", "ß", "x"}
	rng := rand.New(rand.NewPCG(3, 5))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(14) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		if got, want := MentionCandidates(text), mentionCandidatesByDefinition(text); !maps.Equal(got, want) {
			t.Fatalf("%q:\n got %v\nwant %v", text, got, want)
		}
	}
}
