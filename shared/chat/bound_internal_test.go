package chat

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A delta is taken in pieces of whole characters, none over
// boundPieceBytes, that join back to it.
func TestPiecesKeepWholeCharacters(t *testing.T) {
	cases := map[string]string{
		"empty":              "",
		"short":              "The rate is 23%.",
		"exactly one piece":  strings.Repeat("a", boundPieceBytes),
		"ascii, long":        strings.Repeat("tax ", 5000),
		"two-byte, long":     strings.Repeat("é", 5000),
		"four-byte, long":    strings.Repeat("𝄞", 3000),
		"mixed, off by one":  "a" + strings.Repeat("€", 4000),
		"three-byte at edge": strings.Repeat("a", boundPieceBytes-1) + "€€",
	}
	for name, delta := range cases {
		t.Run(name, func(t *testing.T) {
			got := pieces(delta)
			if strings.Join(got, "") != delta {
				t.Fatal("the pieces do not join back to the delta")
			}
			for i, p := range got {
				if len(p) > boundPieceBytes || !utf8.ValidString(p) {
					t.Errorf("piece %d: %d bytes, valid UTF-8 %v", i, len(p), utf8.ValidString(p))
				}
			}
		})
	}
}

// The bound counts nothing while the answer's bytes cannot hold more
// tokens than it, then counts every boundPieceBytes.
func TestAnswerBoundCountsOnlyWhenItCouldBePassed(t *testing.T) {
	counted := 0
	count := func(s string) int { counted++; return len(s) / 4 }
	b := answerBound{tokens: 1000}
	var answer strings.Builder
	over := false
	for !over && answer.Len() < 100000 {
		answer.WriteString(strings.Repeat("word", 100)) // 400 bytes, 100 "tokens"
		over = b.over(answer.String(), count)
	}
	if !over {
		t.Fatal("an answer of 100,000 bytes never passed a 1,000-token bound")
	}
	if n := answer.Len(); n <= 4000 || n > 4000+boundPieceBytes+400 {
		t.Errorf("cut at %d bytes, want just past 4,000 (1,000 tokens of 4 bytes)", n)
	}
	if counted > 2 {
		t.Errorf("counted %d times, want at most 2", counted)
	}
}
