package chat

import "unicode/utf8"

// AnswerBoundMultiple is how many output allowances one answer may hold:
// a model that ignores its max_output_tokens is cut there, and the turn is
// stored interrupted with the text so far.
const AnswerBoundMultiple = 2

// boundPieceBytes is the most text taken from the model between two
// checks of the bound, so one huge delta cannot slip past it.
const boundPieceBytes = 4096

// answerBound measures an answer against its bound as it grows. The
// tokens are counted only once the answer's bytes could hold more than
// the bound (a token is at least one byte), and then again only every
// boundPieceBytes, so the stored answer is at most a piece or two past it.
type answerBound struct {
	tokens    int // the bound, in the model's tokens
	countedAt int // the answer's length in bytes at the last count
}

// over reports whether answer, as it is now, is past the bound.
func (b *answerBound) over(answer string, count func(string) int) bool {
	if len(answer) <= b.tokens || (b.countedAt > 0 && len(answer)-b.countedAt < boundPieceBytes) {
		return false
	}
	b.countedAt = len(answer)
	return count(answer) > b.tokens
}

// pieces splits a delta into pieces of at most boundPieceBytes, each of
// whole characters.
func pieces(delta string) []string {
	if len(delta) <= boundPieceBytes {
		return []string{delta}
	}
	var out []string
	for len(delta) > boundPieceBytes {
		cut := boundPieceBytes
		for cut > 0 && !utf8.RuneStart(delta[cut]) {
			cut--
		}
		if cut == 0 {
			cut = boundPieceBytes
		}
		out = append(out, delta[:cut])
		delta = delta[cut:]
	}
	return append(out, delta)
}
