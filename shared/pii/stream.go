package pii

import (
	"strings"
	"unicode/utf8"
)

// Stream redacts a text that arrives in pieces, such as a model's answer,
// deciding each part once. A part is decided when no personal data can
// still run across its end whatever comes next: the text is cut only at a
// word boundary with at least HoldBytes after it, or after a sentence's
// last word, and never inside a match. The time between pieces plays no
// part. Each decision reads the new text with HoldBytes of what came
// before (a cue such as "born on" may precede a value), so the work per
// byte stays the same however long the text grows.
//
// The zero Stream is ready to use; it is not safe for concurrent use.
type Stream struct {
	raw     strings.Builder
	out     strings.Builder
	decided int // bytes of raw decided (and in out, redacted)
	// taken and takenOut are how far Next has handed out raw and out.
	taken, takenOut int
}

// HoldBytes is the longest stretch of text one item of personal data is
// taken to span (a spaced IBAN or card number, a street address, a name
// with its title): a cut with this much text after it has every item
// crossing it whole in view. It is also how far the live answer trails
// the model, so it is kept near the longest item the detectors read:
// items without spaces (an email, an IP address) never cross a cut.
const HoldBytes = 48

// Write appends a piece of the text.
func (s *Stream) Write(piece string) {
	if s.raw.Cap() == 0 {
		s.raw.Grow(firstRoom)
	}
	s.raw.WriteString(piece)
}

// firstRoom is the room a stream's text is given at its first piece, so
// a usual answer grows its buffer once or not at all.
const firstRoom = 4 << 10

// Raw is the text written so far, as written.
func (s *Stream) Raw() string { return s.raw.String() }

// Redacted is the decided text so far, redacted and without invisible
// characters (see StripInvisible).
func (s *Stream) Redacted() string { return s.out.String() }

// Undecided is how many bytes at the end are still held back.
func (s *Stream) Undecided() int { return s.raw.Len() - s.decided }

// Next decides what it can (everything when final) and returns the text
// decided since the last call to Next, as written and as redacted.
func (s *Stream) Next(final bool) (raw, redacted string) {
	s.Decide(final)
	all, out := s.raw.String(), s.out.String()
	raw, redacted = all[s.taken:s.decided], out[s.takenOut:]
	s.taken, s.takenOut = s.decided, len(out)
	return raw, redacted
}

// Decide decides what it can, everything when final, and appends the
// decided part, redacted, to Redacted.
func (s *Stream) Decide(final bool) {
	text := s.raw.String()
	if s.decided == len(text) {
		return
	}
	cut := len(text)
	if !final {
		cut = outsideNumberInWords(text, s.decided, decidedEnd(text, s.decided))
		if cut <= s.decided || cut-s.decided < minStep && !sentenceEnd(text, cut) {
			return
		}
	}
	from := contextStart(text, s.decided)
	window := text[from:]
	var inSpan []Match
	for _, m := range Find(window) {
		m.Start, m.End = m.Start+from, m.End+from
		if m.End <= s.decided {
			continue // in what was decided before
		}
		if m.Start < cut && m.End > cut {
			if m.Start >= s.decided {
				// Still open: the next decision sees it whole.
				cut = m.Start
				break
			}
			cut = m.End
		}
		if m.Start >= cut {
			break
		}
		m.Start = max(m.Start, s.decided)
		inSpan = append(inSpan, m)
	}
	if cut <= s.decided {
		return
	}
	span := text[s.decided:cut]
	if len(inSpan) > 0 {
		for i := range inSpan {
			inSpan[i].Start -= s.decided
			inSpan[i].End -= s.decided
		}
		// Taking the values out may leave their neighbours a shape of
		// their own; Redact reads the rest again (see Redact).
		span, _ = Redact(replaceMatches(span, inSpan))
	}
	s.out.WriteString(StripInvisible(span))
	s.decided = cut
}

// minStep is the least text a decision takes on, but for a finished
// sentence: each decision reads HoldBytes ahead, so deciding a byte at a
// time would read the text many times over.
const minStep = 8

// lookBack is how much decided text a decision reads again: a cue word
// ("born on", "passport number", "my name is", "Dr") stands at most a few
// words before its value.
const lookBack = 64

// sentenceEnd reports whether the cut at end follows a sentence end.
func sentenceEnd(text string, end int) bool {
	return end > 1 && lastSentenceEnd(text[:end], end-2) == end
}

// contextStart is where a decision at decided starts reading: lookBack
// before it, moved on to the start of a word.
func contextStart(text string, decided int) int {
	from := decided - lookBack
	if from <= 0 {
		return 0
	}
	if i := strings.IndexAny(text[from:decided], " \t\n"); i >= 0 {
		return from + i + 1
	}
	return decided
}

// decidedEnd is the furthest word boundary after decided that no item
// can run across: the last with HoldBytes of text after it, or the last
// sentence end, whichever is later.
func decidedEnd(text string, decided int) int {
	end := decided
	if limit := len(text) - HoldBytes; limit > decided {
		if i := strings.LastIndexAny(text[decided:limit], " \t\n"); i >= 0 {
			end = decided + i + 1
		}
	}
	return max(end, lastSentenceEnd(text, end))
}

// maxNumberWords bounds how far back outsideNumberInWords moves a cut: a
// number in words is a few dozen words at most (a card number is
// sixteen).
const maxNumberWords = 32

// outsideNumberInWords moves a cut at a word boundary back to the start
// of a number written in words that runs across it ("four one one | one
// one ..."): such a number is longer than HoldBytes, and its first words
// are not yet a match of their own.
func outsideNumberInWords(text string, decided, cut int) int {
	if cut >= len(text) || !numberWordAt(text, cut) {
		return cut
	}
	for n := 0; n < maxNumberWords && cut > decided; n++ {
		end := cut
		for end > decided && isSpaceByte(text[end-1]) {
			end--
		}
		start := end
		for start > decided && !isSpaceByte(text[start-1]) {
			start--
		}
		if start == end || !numberWordAt(text, start) {
			break
		}
		cut = start
	}
	return cut
}

// numberWordAt: the word at i reads as part of a number (see wordEdits).
func numberWordAt(text string, i int) bool {
	if i >= len(text) || !isPieceStart(text[i]) {
		return false
	}
	p := pieceAt(text, i)
	switch p.info.role {
	case roleDigit, roleZero, roleTeen, roleTens, roleOrdinal, roleRepeat, roleHundred, roleThousand, roleAnd, roleParticle:
		return true
	}
	return p.numeral
}

// lastSentenceEnd is the position after the last sentence end in
// text[from:]: a full stop, question or exclamation mark after a word of
// five or more letters, then white space. No item runs across one: the
// words that end with a dot in an item are short (Mr., St., No.) or hold
// digits. It returns from when there is none.
func lastSentenceEnd(text string, from int) int {
	for i := len(text) - 1; i > from; i-- {
		if !isSpaceByte(text[i]) {
			continue
		}
		p := i - 1
		if c := text[p]; c != '.' && c != '?' && c != '!' {
			continue
		}
		letters := 0
		for j := p; j > 0; {
			r, size := utf8.DecodeLastRuneInString(text[:j])
			if !isWordLetter(r) {
				break
			}
			letters++
			j -= size
		}
		if letters >= 5 && wordStartsAt(text, p, letters) {
			return i + 1
		}
	}
	return from
}

// wordStartsAt reports whether the letters run before p is a whole word
// (it starts the text or follows white space or an opening bracket), not
// the tail of an e-mail domain or an id.
func wordStartsAt(text string, p, letters int) bool {
	j := p
	for range letters {
		_, size := utf8.DecodeLastRuneInString(text[:j])
		j -= size
	}
	if j == 0 {
		return true
	}
	c := text[j-1]
	return isSpaceByte(c) || c == '(' || c == '"'
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isWordLetter(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0xC0 && r < 0x2000 && r != 0xD7 && r != 0xF7
}
