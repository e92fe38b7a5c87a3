package pii

import (
	"iter"
	"slices"
)

// Anchors are the places a detector's match can start or hold, found in
// one pass, so its pattern reads only a few words around each rather than
// every byte of a text dense with numbers (a rules answer full of dates,
// rates and ids). Each kind's anchors are a necessary condition of its
// pattern.

// anchorRule is where a kind's matches are anchored and how far they reach
// before and after the anchor.
type anchorRule struct {
	at            func(text string, i int) bool
	before, after int
	// places are, in ascending order, the only places at may hold: each
	// rule's anchors stand at or beside the marks it names (see marks).
	places func(m *marks) iter.Seq[int]
}

var anchorRules = map[Kind]anchorRule{
	// An e-mail address is one word around its '@'.
	KindEmail: {at: func(t string, i int) bool { return t[i] == '@' }, before: narrowMargin, after: narrowMargin, places: atSigns},
	// Digits joined by three dots (1.1.1.1), or two colons close
	// together (::1, 2001:db8:...).
	KindIP: {at: ipAnchor, before: narrowMargin, after: 40, places: colonsAndRunStarts},
	// A registry country's two letters and two digits starting a word;
	// the rest follows.
	KindIBAN: {at: ibanAnchor, before: 0, after: 48, places: twoBeforeRuns},
	// Registrations, Eircodes and postcodes mix letters and digits in a
	// word or across one space or dash.
	KindVehicleReg: {at: letterByDigit, before: 10, after: 10, places: besideRuns},
	KindEircode:    {at: letterByDigit, before: 10, after: 10, places: besideRuns},
	KindPostcode:   {at: letterByDigit, before: 10, after: 10, places: besideRuns},
	// A house number starting a word, then a capitalised word; or the
	// number of a flat, apartment or unit.
	KindAddress: {at: addressAnchor, before: 12, after: 64, places: runStarts},
}

// marks are the places of a text every anchor stands at or beside, found
// in one pass: its '@' and ':' signs and the ends of its runs of digits.
// An anchor on a digit is a run's first digit (nothing word-like before
// it), and a letter by a digit stands just before a run or just after
// one; most of a text is none of these.
type marks struct {
	atSigns, colons    []int
	runStarts, runEnds []int // a run's first and last digit
}

func atSigns(m *marks) iter.Seq[int] { return slices.Values(m.atSigns) }

func runStarts(m *marks) iter.Seq[int] { return slices.Values(m.runStarts) }

// colonsAndRunStarts merges the two, in order.
func colonsAndRunStarts(m *marks) iter.Seq[int] {
	return func(yield func(int) bool) {
		a, b := m.colons, m.runStarts
		for len(a) > 0 || len(b) > 0 {
			var next int
			if len(b) == 0 || len(a) > 0 && a[0] < b[0] {
				next, a = a[0], a[1:]
			} else {
				next, b = b[0], b[1:]
			}
			if !yield(next) {
				return
			}
		}
	}
}

// twoBeforeRuns: where a word of two letters then digits starts.
func twoBeforeRuns(m *marks) iter.Seq[int] {
	return func(yield func(int) bool) {
		for _, s := range m.runStarts {
			if !yield(s - 2) {
				return
			}
		}
	}
}

// besideRuns: one or two places before each run and after it. They
// ascend but where two runs are one place apart; the places given twice
// there are digits, which no letter anchor stands on.
func besideRuns(m *marks) iter.Seq[int] {
	return func(yield func(int) bool) {
		for r, s := range m.runStarts {
			e := m.runEnds[r]
			for _, i := range [4]int{s - 2, s - 1, e + 1, e + 2} {
				if !yield(i) {
					return
				}
			}
		}
	}
}

func ipAnchor(t string, i int) bool {
	if t[i] == ':' {
		// Two colons with at most four hex digits between, as every
		// IPv6 address has.
		for j := i + 1; j < len(t) && j <= i+5; j++ {
			if t[j] == ':' {
				return true
			}
			if !isHex(t[j]) {
				return false
			}
		}
		return false
	}
	// The first digit of digits joined by three dots or more.
	if !isDigit(t[i]) || i > 0 && (isDigit(t[i-1]) || t[i-1] == '.') {
		return false
	}
	dots := 0
	for j := i; j < len(t) && (isDigit(t[j]) || t[j] == '.'); j++ {
		if t[j] == '.' {
			dots++
		}
	}
	return dots >= 3
}

func ibanAnchor(t string, i int) bool {
	if !(i+3 < len(t) && isLetter(t[i]) && isLetter(t[i+1]) && isDigit(t[i+2]) && isDigit(t[i+3]) &&
		(i == 0 || !isWordByte(t[i-1]))) {
		return false
	}
	// A country of the IBAN registry, as ibanAt requires.
	country := [2]byte{t[i] &^ 0x20, t[i+1] &^ 0x20}
	_, known := ibanLengths[string(country[:])]
	return known
}

// letterByDigit: a letter with a digit next to it, or one space or dash
// away.
func letterByDigit(t string, i int) bool {
	if !isLetter(t[i]) {
		return false
	}
	near := func(j, step int) bool {
		if j < 0 || j >= len(t) {
			return false
		}
		if isDigit(t[j]) {
			return true
		}
		k := j + step
		return (t[j] == ' ' || t[j] == '-') && k >= 0 && k < len(t) && isDigit(t[k])
	}
	return near(i-1, -1) || near(i+1, 1)
}

func addressAnchor(t string, i int) bool {
	if !isDigit(t[i]) || i > 0 && isWordByte(t[i-1]) {
		return false
	}
	if flatWordBefore(t, i) {
		return true
	}
	j := i
	for j < len(t) && isDigit(t[j]) {
		j++
	}
	if j < len(t) && isLetter(t[j]) {
		j++
	}
	if j < len(t) && t[j] == ',' {
		j++
	}
	spaces := j
	for j < len(t) && isSpaceByte(t[j]) {
		j++
	}
	// A capital: ASCII, or the lead byte of a letter of another script.
	return j > spaces && j < len(t) && (t[j] >= 'A' && t[j] <= 'Z' || t[j] >= 0xC3)
}

// flatWordBefore: "apartment", "apt", "flat" or "unit" (any case) and
// white space just before i.
func flatWordBefore(t string, i int) bool {
	j := i
	for j > 0 && isSpaceByte(t[j-1]) {
		j--
	}
	if j == i {
		return false
	}
	end := j
	if end > 0 && t[end-1] == '.' {
		end--
	}
	start := end
	for start > 0 && isLetter(t[start-1]) {
		start--
	}
	var buf [24]byte
	switch string(lowerASCII(t[start:end], &buf)) {
	case "apartment", "apt", "flat", "unit":
		return true
	}
	return false
}

// anchoredRegions are the regions of text around the anchors of rule,
// widened to white space so no word is cut, overlapping ones merged. Only
// the places the rule names are tried, each once.
func anchoredRegions(text string, rule anchorRule, m *marks) []region {
	var out []region
	tried := -1
	for i := range rule.places(m) {
		if i <= tried || i >= len(text) {
			continue
		}
		tried = i
		if !rule.at(text, i) {
			continue
		}
		if n := len(out); n > 0 && i+1+rule.after <= out[n-1].end && i-rule.before >= out[n-1].start {
			continue // inside the last region
		}
		out = addRegion(out, text, max(0, i-rule.before), min(len(text), i+1+rule.after))
	}
	return out
}
