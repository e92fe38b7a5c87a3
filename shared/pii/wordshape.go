package pii

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// wordShape is what one pass over the words of a text tells the detectors
// that look for words and cues rather than digit groups, so their patterns
// run only on text that could hold a match.
type wordShape struct {
	honorific, intro, givenName bool // the three ways names are found
	street                      bool // a street type or a flat/unit word
	birthCue, passportCue       bool
	// capsNextToDigit: a run of one to three capitals bounded by a digit on
	// one side (across at most one space or dash), as in registrations
	// ("191-D-12345", "AB12 CDE") and postcodes ("SW1A 1AA").
	capsNextToDigit bool
	// lowerNextToDigit: one or two lower-case letters starting a word
	// and glued to a digit, as a postcode written in lower case ("sw1a").
	lowerNextToDigit bool
}

var (
	honorifics  = setOf("Mr", "Mrs", "Ms", "Miss", "Mx", "Dr", "Prof", "Sir", "Dame", "Fr", "Rev")
	streetWords = setOf("street", "st", "road", "rd", "avenue", "ave", "lane", "drive", "close", "park", "terrace",
		"crescent", "place", "square", "way", "court", "grove", "gardens", "row", "quay", "hill", "green", "view",
		"heights", "walk", "mews", "rise", "manor", "lawn", "lawns", "apartment", "apt", "flat", "unit")
	birthWords = setOf("born", "birth", "dob", "birthdate", "birthday", "d")
	introWords = setOf("name", "called", "signed")
)

// cueBits say which of the cue sets a word (in lower case) is in.
type cueBits uint8

const (
	cueHonorific cueBits = 1 << iota // then the word as written must be in honorifics
	cueStreet
	cueBirth
	cuePassport
	cueIntro
	cueGiven
)

// cueWords merges the cue sets, so a word is looked up once; most words
// are ruled out before that by cueWordStarts (first letter and length in
// bytes, as wordStarts does for number words).
var cueWords, cueWordStarts = func() (map[string]cueBits, [256]uint32) {
	m := map[string]cueBits{"passport": cuePassport}
	for set, bit := range map[*map[string]bool]cueBits{&streetWords: cueStreet, &birthWords: cueBirth, &introWords: cueIntro, &givenNames: cueGiven} {
		for w := range *set {
			m[w] |= bit
		}
	}
	for w := range honorifics {
		m[strings.ToLower(w)] |= cueHonorific
	}
	var starts [256]uint32
	for w := range m {
		if len(w) < 32 {
			starts[w[0]] |= 1 << len(w)
		}
	}
	return m, starts
}()

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func wordShapeOf(text string) wordShape {
	var s wordShape
	var buf [24]byte
	prevGiven := false
	for i := 0; i < len(text); {
		if !isLetter(text[i]) && text[i] < utf8.RuneSelf {
			s.checkDigitsAround(text, i)
			i++
			continue
		}
		j := i
		for j < len(text) && (isLetter(text[j]) || text[j] >= 0x80) {
			j++
		}
		word := text[i:j]
		first, _ := utf8.DecodeRuneInString(word)
		capitalised := unicode.IsUpper(first)
		var bits cueBits
		if n := len(word); n < 32 && cueWordStarts[word[0]|0x20]&(1<<n) != 0 {
			bits = cueWords[string(lowerASCII(word, &buf))]
		}
		s.honorific = s.honorific || bits&cueHonorific != 0 && honorifics[word]
		s.street = s.street || bits&cueStreet != 0
		s.birthCue = s.birthCue || bits&cueBirth != 0
		s.passportCue = s.passportCue || bits&cuePassport != 0
		s.intro = s.intro || bits&cueIntro != 0
		s.givenName = s.givenName || (prevGiven && capitalised)
		prevGiven = capitalised && bits&cueGiven != 0
		s.checkCaps(text, i, j)
		i = j
	}
	return s
}

// checkCaps looks at the capitals run text[i:j] (a word) for the
// registration and postcode shapes.
func (s *wordShape) checkCaps(text string, i, j int) {
	if j-i <= 3 && (digitNear(text, i-1, -1) || digitNear(text, j, 1)) && noneIn(text[i:j], 'a', 'z', strings.ToUpper) {
		s.capsNextToDigit = true
	}
	if j-i <= 2 && j < len(text) && isDigit(text[j]) && (i == 0 || !isWordByte(text[i-1])) && noneIn(text[i:j], 'A', 'Z', strings.ToLower) {
		s.lowerNextToDigit = true
	}
}

// noneIn reports whether word is its own case mapping: for ASCII, that it
// holds no byte from lo to hi; otherwise as mapping tells.
func noneIn(word string, lo, hi byte, mapping func(string) string) bool {
	for k := 0; k < len(word); k++ {
		switch c := word[k]; {
		case c >= utf8.RuneSelf:
			return mapping(word) == word
		case c >= lo && c <= hi:
			return false
		}
	}
	return true
}

// checkDigitsAround marks a capital glued to a digit inside a token
// ("SW1A", "4567T").
func (s *wordShape) checkDigitsAround(text string, i int) {
	if isDigit(text[i]) && i+1 < len(text) && text[i+1] >= 'A' && text[i+1] <= 'Z' {
		s.capsNextToDigit = true
	}
}

// digitNear reports a digit at i, or one step further in direction dir
// across a single space or dash.
func digitNear(text string, i, dir int) bool {
	if i < 0 || i >= len(text) {
		return false
	}
	if isDigit(text[i]) {
		return true
	}
	k := i + dir
	return (text[i] == ' ' || text[i] == '-') && k >= 0 && k < len(text) && isDigit(text[k])
}

// lowerASCII lower-cases a short word into buf without allocating; longer
// words are not cue words and come back empty.
func lowerASCII(word string, buf *[24]byte) []byte {
	if len(word) > len(buf) {
		return nil
	}
	for i := 0; i < len(word); i++ {
		c := word[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return buf[:len(word)]
}

// mayHoldName: one of the three ways names are found (see findNames).
func (s wordShape) mayHoldName() bool { return s.honorific || s.intro || s.givenName }

// cueFor reports whether the text has a word the kind's detector may find
// some way before the number it holds.
func (s wordShape) cueFor(k Kind) bool {
	switch k {
	case KindDOB:
		return s.birthCue
	case KindPassport:
		return s.passportCue
	case KindAddress:
		return s.street
	}
	return false
}
