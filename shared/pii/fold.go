package pii

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Fold returns text in the form the detectors read it: NFKC, with format
// characters (zero-width spaces and joiners, soft hyphens, word joiners)
// and combining marks removed, decimal digits of every script as ASCII
// digits, every dash as "-", every space as " ", and Cyrillic and Greek
// letters that look like Latin ones as those Latin letters. A disguised
// value ("٠٨٧ ١٢٣ ٤٥٦٧", "jаne@example.com" with a Cyrillic "а") reads as
// the plain one.
func Fold(text string) string { return fold(text).text }

// folded is a derived form of a text with, for each of its bytes, the span
// of the original text it came from, so a match in the form can be
// replaced in the original.
type folded struct {
	text string
	// segments map the form back to the original, in order; none: byte i
	// came from byte i.
	segments []segment
	// joins, in a compacted form, are the places (ascending) where
	// separators were taken out: a match that holds none is in the form
	// it was compacted from too.
	joins []int
}

// segment is a run of a form's bytes, from at to the next segment's at, read
// from the original's [from, to): byte for byte when copied, else each of
// its bytes stands for the whole span (a folded rune, a decoded escape, a
// number read from words).
type segment struct {
	at, from, to int
	copied       bool
}

// mapBuilder builds a form's segments as its text grows.
type mapBuilder struct {
	segments []segment
	n        int // bytes of the form mapped so far
}

// copied maps the next n bytes of the form to original bytes from on.
func (m *mapBuilder) copied(from, n int) {
	if n <= 0 {
		return
	}
	if k := len(m.segments); k > 0 {
		if last := &m.segments[k-1]; last.copied && last.to == from {
			last.to += n
			m.n += n
			return
		}
	}
	m.segments = append(m.segments, segment{at: m.n, from: from, to: from + n, copied: true})
	m.n += n
}

// whole maps the next n bytes of the form each to the span [from, to).
func (m *mapBuilder) whole(from, to, n int) {
	if n <= 0 {
		return
	}
	m.segments = append(m.segments, segment{at: m.n, from: from, to: to})
	m.n += n
}

// takeFrom maps the next bytes of the form as f's bytes [start, end) map.
func (m *mapBuilder) takeFrom(f folded, start, end int) {
	if start >= end {
		return
	}
	if f.segments == nil {
		m.copied(start, end-start)
		return
	}
	i := f.segmentAt(start)
	for pos := start; pos < end; i++ {
		p := f.segments[i]
		stop := len(f.text)
		if i+1 < len(f.segments) {
			stop = f.segments[i+1].at
		}
		stop = min(stop, end)
		if p.copied {
			m.copied(p.from+pos-p.at, stop-pos)
		} else {
			m.whole(p.from, p.to, stop-pos)
		}
		pos = stop
	}
}

// segmentAt is the index of the segment holding byte i.
func (f folded) segmentAt(i int) int {
	k, found := slices.BinarySearchFunc(f.segments, i, func(p segment, i int) int { return p.at - i })
	if !found {
		k--
	}
	return k
}

func fold(s string) folded {
	if isPlainASCII(s) || foldsToItself(s) {
		return identity(s)
	}
	var m mapBuilder
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			j := i + 1
			for j < len(s) && s[j] < utf8.RuneSelf {
				j++
			}
			b.WriteString(s[i:j])
			m.copied(i, j-i)
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		var out string
		if r >= 0xE0000 && r <= 0xE007F {
			out = untag(r)
		} else {
			out = foldRune(r)
		}
		b.WriteString(out)
		if out == s[i:i+size] {
			m.copied(i, size)
		} else {
			m.whole(i, i+size, len(out))
		}
		i += size
	}
	return folded{text: b.String(), segments: m.segments}
}

// isPlainASCII: nothing to fold (the common case).
func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// identity is s as its own form: byte i comes from byte i.
func identity(s string) folded { return folded{text: s} }

// untag reads a tag character as the ASCII character it stands for
// (U+E0041 is "A"); the tags that stand for no printable character
// read as nothing.
func untag(r rune) string {
	if c := r - 0xE0000; c >= ' ' && c <= '~' {
		return string(c)
	}
	return ""
}

// foldsToItself: every rune of s folds to itself (a euro sign, a
// curly quote), so the form is s.
func foldsToItself(s string) bool {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0xE0000 && r <= 0xE007F || foldRune(r) != s[i:i+size] {
			return false
		}
		i += size
	}
	return true
}

// foldedRunes remembers foldRune's answers for up to maxFoldedRunes
// runes: a text repeats its few non-ASCII runes, and NFKC per rune is the
// costly part of folding.
var (
	foldedRunes     sync.Map // rune -> string
	foldedRuneCount atomic.Int64
)

const maxFoldedRunes = 4096

func foldRune(r rune) string {
	if out, ok := foldedRunes.Load(r); ok {
		return out.(string)
	}
	out := foldRuneNFKC(r)
	if foldedRuneCount.Add(1) <= maxFoldedRunes {
		foldedRunes.Store(r, out)
	}
	return out
}

func foldRuneNFKC(r rune) string {
	var b strings.Builder
	for _, c := range norm.NFKC.String(string(r)) {
		switch {
		case unicode.Is(unicode.Cf, c) || unicode.Is(unicode.Mn, c):
		case unicode.IsDigit(c):
			b.WriteByte('0' + digitValue(c))
		case unicode.Is(unicode.Pd, c) || c == '−':
			b.WriteByte('-')
		case unicode.IsSpace(c) || unicode.Is(unicode.Zs, c):
			b.WriteByte(' ')
		default:
			if l, ok := lookAlikes[c]; ok {
				c = l
			}
			b.WriteRune(c)
		}
	}
	return b.String()
}

// digitValue is the value of a decimal digit of any script: Unicode lays
// out every script's digits as one run of ten, zero first, so the value is
// the rune's place in its run.
func digitValue(r rune) byte {
	n := 0
	for n < 40 && unicode.IsDigit(r-rune(n)-1) {
		n++
	}
	return byte(n % 10)
}

// lookAlikes folds the Cyrillic and Greek letters that are drawn like
// Latin ones (the confusables an attacker swaps into an identifier) to
// those Latin letters. Letters with no Latin twin are left as they are.
var lookAlikes = map[rune]rune{
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'і': 'i', 'ј': 'j', 'ѕ': 's',
	'һ': 'h', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'ӏ': 'l',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T',
	'Х': 'X', 'У': 'Y', 'І': 'I', 'Ј': 'J', 'Ѕ': 'S', 'Ԁ': 'D', 'Ԛ': 'Q', 'Ԝ': 'W', 'Ӏ': 'I',
	'ο': 'o', 'α': 'a', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x', 'ϲ': 'c',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O',
	'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
	// More of Unicode's confusables: Greek, Latin letters of other
	// alphabets (IPA, dotless i), Armenian and Cherokee.
	'ε': 'e', 'ϵ': 'e', 'η': 'n', 'ω': 'w', 'γ': 'y', 'ϳ': 'j', 'ѵ': 'v', 'ѡ': 'w', 'Ѵ': 'V',
	'ɑ': 'a', 'ɡ': 'g', 'ı': 'i', 'ɩ': 'i', 'ʏ': 'y',
	'օ': 'o', 'ս': 'u', 'հ': 'h', 'ո': 'n', 'ց': 'g', 'զ': 'q', 'Ս': 'U', 'Օ': 'O',
	'Ꭺ': 'A', 'Ᏼ': 'B', 'Ꮯ': 'C', 'Ꭼ': 'E', 'Ꮋ': 'H', 'Ꮮ': 'L', 'Ꮇ': 'M', 'Ꮪ': 'S', 'Ꭲ': 'T', 'Ꮃ': 'W',
}

// span maps a byte range of the form back to the original text.
func (f folded) span(start, end int) (int, int) {
	if f.segments == nil {
		return start, end
	}
	first, last := f.segments[f.segmentAt(start)], f.segments[f.segmentAt(end-1)]
	from, to := first.from, last.to
	if first.copied {
		from += start - first.at
	}
	if last.copied {
		to = last.from + end - last.at
	}
	return from, to
}

func isSeparator(c byte) bool { return c == ' ' || c == '.' || c == '-' || c == '/' || c == '_' }

// compactions are the form's two compactions. Each drops the runs of one
// or two separators (space, dot, dash, slash, underscore) that sit inside
// a number or between a number and a letter: digitLed after a digit only,
// all before a digit too; a run holding a space only between two digits.
// "087/123/4567" and "1234567-T" read as "0871234567" and "1234567T". A
// form with nothing to drop is its own compaction.
func (f folded) compactions() (digitLed, all folded) {
	t := f.text
	var afterDigit, anyDigit []dropRun
	for i := 0; i < len(t); {
		if !isSeparator(t[i]) {
			i++
			continue
		}
		j := i
		for j < len(t) && isSeparator(t[j]) {
			j++
		}
		if i > 0 && j < len(t) && j-i <= 2 && isAlnum(t[i-1]) && isAlnum(t[j]) {
			// A space ends a word unless digits stand on both sides of it.
			spaced := t[i] == ' ' || t[j-1] == ' '
			digitBefore, digitAfter := isDigit(t[i-1]), isDigit(t[j])
			switch {
			case spaced && !(digitBefore && digitAfter):
			case digitBefore:
				afterDigit = append(afterDigit, dropRun{i, j})
				anyDigit = append(anyDigit, dropRun{i, j})
			case digitAfter:
				anyDigit = append(anyDigit, dropRun{i, j})
			}
		}
		i = j
	}
	return f.joinedAround(afterDigit), f.joinedAround(anyDigit)
}

// dropRun is text[start:end], left out of a compacted form.
type dropRun struct{ start, end int }

// joinReach is how far from a join a match holding it may reach: the
// longest compacted value (an IBAN) and the cue words before it.
const joinReach = 64

// joinedAround is the form without the runs drops marks (in order), and
// with only the stretches within joinReach of a join (widened to white
// space), one line each: the rest reads as in f, where the detectors read
// it already.
func (f folded) joinedAround(drops []dropRun) folded {
	if len(drops) == 0 {
		return f
	}
	t := f.text
	out := folded{}
	var m mapBuilder
	var b strings.Builder
	keepTo := -1 // bytes before keepTo are in the current stretch
	kept := -1   // bytes before kept are written
	flush := func(upTo int) {
		if upTo > kept {
			b.WriteString(t[kept:upTo])
			m.takeFrom(f, kept, upTo)
			kept = upTo
		}
	}
	for _, d := range drops {
		if d.start >= keepTo {
			// A new stretch, or the current one goes on.
			from := max(0, d.start-joinReach)
			for from > 0 && !isSpaceByte(t[from-1]) {
				from--
			}
			if keepTo >= 0 {
				flush(keepTo)
				if from > keepTo {
					b.WriteByte('\n')
					m.takeFrom(f, keepTo-1, keepTo)
				}
			}
			kept = max(from, kept)
		}
		flush(d.start)
		kept = d.end // the dropped run
		if n := len(out.joins); n == 0 || out.joins[n-1] != b.Len() {
			out.joins = append(out.joins, b.Len())
		}
		keepTo = min(len(t), d.end+joinReach)
		for keepTo < len(t) && !isSpaceByte(t[keepTo]) {
			keepTo++
		}
	}
	if keepTo >= 0 {
		flush(keepTo)
	}
	out.text = b.String()
	out.segments = m.segments
	if out.segments == nil {
		out.segments = []segment{} // not the identity
	}
	return out
}

// holdsJoin: [start, end) of a compacted form has a join inside it, so a
// match there may be new to this form.
func (f folded) holdsJoin(start, end int) bool {
	i, _ := slices.BinarySearch(f.joins, start+1)
	return i < len(f.joins) && f.joins[i] < end
}

// forms are the derived forms the detectors run on: the normal form (see
// Normalize) and its two compactions.
func forms(text string) []folded {
	base := normalize(text)
	out := []folded{base}
	// Compaction only serves the number detectors, and those need six
	// grouped digits at least (see textShape).
	if mostGroupedDigits(base.text) < 6 {
		return out
	}
	digitLed, all := base.compactions()
	for _, f := range []folded{digitLed, all} {
		if f.text != out[len(out)-1].text {
			out = append(out, f)
		}
	}
	return out
}

// mostGroupedDigits is the most digits of one cluster (see digitClusters),
// counted without listing the clusters.
func mostGroupedDigits(text string) int {
	most, n, gap := 0, 0, 0
	for i := 0; i < len(text); i++ {
		switch digitScanClass[text[i]] {
		case scanDigit:
			if n == 0 || gap > maxDigitGap {
				n = 0
			}
			n++
			gap = 0
			most = max(most, n)
		case scanGap:
			if n > 0 {
				gap++
			}
		default:
			n, gap = 0, 0
		}
	}
	return most
}
