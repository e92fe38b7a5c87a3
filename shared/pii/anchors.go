package pii

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
	// fromMark are the offsets from a mark (see marksOf) where an anchor
	// may stand: every place at holds is a mark plus one of them, so only
	// those places are tried.
	fromMark []int
}

var anchorRules = map[Kind]anchorRule{
	// An e-mail address is one word around its '@'.
	KindEmail: {at: func(t string, i int) bool { return t[i] == '@' }, before: narrowMargin, after: narrowMargin, fromMark: atMark},
	// Digits joined by three dots (1.1.1.1), or two colons close
	// together (::1, 2001:db8:...).
	KindIP: {at: ipAnchor, before: narrowMargin, after: 40, fromMark: atMark},
	// A registry country's two letters and two digits starting a word;
	// the rest follows.
	KindIBAN: {at: ibanAnchor, before: 0, after: 48, fromMark: []int{-2}},
	// Registrations, Eircodes and postcodes mix letters and digits in a
	// word or across one space or dash.
	KindVehicleReg: {at: letterByDigit, before: 10, after: 10, fromMark: besideMark},
	KindEircode:    {at: letterByDigit, before: 10, after: 10, fromMark: besideMark},
	KindPostcode:   {at: letterByDigit, before: 10, after: 10, fromMark: besideMark},
	// A house number starting a word, then a capitalised word; or the
	// number of a flat, apartment or unit.
	KindAddress: {at: addressAnchor, before: 12, after: 64, fromMark: atMark},
}

// Where anchors stand relative to a mark: on it (an '@', a colon, a
// house number's digit), or a letter one or two places from a digit.
var (
	atMark     = []int{0}
	besideMark = []int{-2, -1, 1, 2}
)

// marksOf are the places of the digits, '@' and ':' of text, in order:
// every anchor is at or near one, and most of a text is neither.
func marksOf(text string) []int {
	var out []int
	for i := 0; i < len(text); i++ {
		if c := text[i]; isDigit(c) || c == '@' || c == ':' {
			out = append(out, i)
		}
	}
	return out
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
// the places rule.fromMark names around the marks are tried.
func anchoredRegions(text string, rule anchorRule, marks []int) []region {
	var out []region
	// Marks and offsets both ascend, so the places tried ascend once the
	// ones already tried are skipped; those are marks themselves or were
	// tried from the mark before (the offsets reach two places either way).
	tried := -1
	for _, m := range marks {
		for _, off := range rule.fromMark {
			i := m + off
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
	}
	return out
}
