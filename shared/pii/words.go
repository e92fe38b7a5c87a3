package pii

import (
	"slices"
	"strconv"
	"strings"
)

// Words that stand for digits, numbers and the signs of an address: one
// pass over a text's words reads numbers written in words as digits
// ("oh eight seven", "nineteen eighty-two", "twelve", "fifth") and the
// word forms of '@' and '.' as those signs, but only where an e-mail
// address (local@domain.tld) or an IPv4 address results, so prose ("look
// at the rate", "at 23%") is read as written.

type wordRole uint8

const (
	roleNone     wordRole = iota
	roleDigit             // zero to nine
	roleZero              // "o", "oh": zero only among other digits
	roleTeen              // ten to nineteen
	roleTens              // twenty to ninety
	roleOrdinal           // first to nineteenth, twentieth, thirtieth
	roleHundred           // hundred
	roleThousand          // thousand
	roleRepeat            // double, triple
	roleAnd               // "and" inside a number
	roleParticle          // Irish "a" before a digit ("a haon")
	roleAt                // a word for '@'
	roleDot               // a word for '.'
)

type wordInfo struct {
	role  wordRole
	value int
	lang  byte // for roleAt and roleDot: the language pairing them
	irish bool
}

var wordInfos = func() map[string]wordInfo {
	m := map[string]wordInfo{}
	for i, w := range strings.Fields("zero one two three four five six seven eight nine") {
		m[w] = wordInfo{role: roleDigit, value: i}
	}
	m["nought"] = wordInfo{role: roleDigit}
	m["o"] = wordInfo{role: roleZero}
	m["oh"] = wordInfo{role: roleZero}
	for i, w := range strings.Fields("ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen") {
		m[w] = wordInfo{role: roleTeen, value: 10 + i}
	}
	for i, w := range strings.Fields("twenty thirty forty fifty sixty seventy eighty ninety") {
		m[w] = wordInfo{role: roleTens, value: 20 + 10*i}
	}
	for i, w := range strings.Fields(`first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth
		thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth`) {
		m[w] = wordInfo{role: roleOrdinal, value: 1 + i}
	}
	m["twentieth"] = wordInfo{role: roleOrdinal, value: 20}
	m["thirtieth"] = wordInfo{role: roleOrdinal, value: 30}
	m["hundred"] = wordInfo{role: roleHundred}
	m["thousand"] = wordInfo{role: roleThousand}
	m["double"] = wordInfo{role: roleRepeat, value: 2}
	m["triple"] = wordInfo{role: roleRepeat, value: 3}
	m["and"] = wordInfo{role: roleAnd}
	// Irish digits (the forms after the particle "a" too); "do" and "se"
	// without their fadas are everyday words and are left out.
	for w, v := range map[string]int{"náid": 0, "aon": 1, "haon": 1, "dó": 2, "trí": 3, "tri": 3, "ceathair": 4,
		"cúig": 5, "cuig": 5, "sé": 6, "seacht": 7, "ocht": 8, "hocht": 8, "naoi": 9} {
		m[w] = wordInfo{role: roleDigit, value: v, irish: true}
	}
	m["a"] = wordInfo{role: roleParticle}
	// The word forms of '@' and '.', paired by language: English, French,
	// Spanish, Italian, German, Irish.
	for w, lang := range map[string]byte{"at": 'e', "arobase": 'f', "arroba": 's', "chiocciola": 'i', "klammeraffe": 'd', "ag": 'g'} {
		m[w] = wordInfo{role: roleAt, lang: lang}
	}
	for w, lang := range map[string]byte{"dot": 'e', "point": 'f', "punto": 's', "punkt": 'd', "ponc": 'g'} {
		m[w] = wordInfo{role: roleDot, lang: lang}
	}
	return m
}()

// dotPairs: the dot word each at word accepts besides "dot".
func dotFits(at, dot byte) bool {
	return dot == 'e' || at == dot || at == 'i' && dot == 's'
}

// piece is a run of letters (or of digits) in a text.
type piece struct {
	start, end int
	info       wordInfo
	numeral    bool // ASCII digits
}

// pieceAt reads the piece starting at i (a letter, a byte of a
// non-ASCII letter, or a digit).
func pieceAt(t string, i int) piece {
	j := i
	if isDigit(t[i]) {
		for j < len(t) && isDigit(t[j]) {
			j++
		}
		return piece{start: i, end: j, numeral: true}
	}
	for j < len(t) && (isLetter(t[j]) || t[j] >= 0x80) {
		j++
	}
	p := piece{start: i, end: j}
	if n := j - i; n < 16 && wordStarts[t[i]|0x20]&(1<<n) != 0 {
		var buf [24]byte
		p.info = wordInfos[string(lowerASCII(t[i:j], &buf))]
	}
	return p
}

// wordStarts has, for each lower-case first byte, a bit for each length
// (in bytes) of the words of wordInfos starting with it: most words of a
// text are ruled out without a lookup.
var wordStarts = func() (m [256]uint16) {
	for w := range wordInfos {
		m[w[0]] |= 1 << len(w)
	}
	return m
}()

func isPieceStart(c byte) bool { return isLetter(c) || isDigit(c) || c >= 0x80 }

// wordEdits reads the words of t once and returns the edits that write
// its numbers in words as digits and its word forms of '@' and '.' as
// signs.
func wordEdits(t string) []edit {
	var out []edit
	var run []piece
	flush := func() {
		if e, ok := readNumberRun(t, run); ok {
			out = append(out, e)
		}
		run = run[:0]
	}
	for i := 0; i < len(t); {
		if !isPieceStart(t[i]) {
			i++
			continue
		}
		p := pieceAt(t, i)
		if p.numeral {
			if es, end, ok := dottedWordsIP(t, p); ok {
				flush()
				out = append(out, es...)
				i = end
				continue
			}
		}
		if p.info.role == roleAt && spaceAround(t, p) {
			if es, ok := emailInWords(t, p); ok {
				flush()
				out = append(out, es...)
				i = es[len(es)-1].end
				continue
			}
		}
		if joinsRun(t, run, p) {
			run = append(run, p)
		} else {
			flush()
			if startsRun(t, p) {
				run = append(run, p)
			}
		}
		i = p.end
	}
	flush()
	// A '@' standing alone between two words ("jane.roe @ example.com").
	if strings.Contains(t, " @ ") {
		out = append(out, spacedAtEdits(t)...)
		slices.SortStableFunc(out, func(a, b edit) int { return a.start - b.start })
	}
	return out
}

// startsRun: a piece that may start a number.
func startsRun(t string, p piece) bool {
	switch p.info.role {
	case roleDigit, roleZero, roleTeen, roleTens, roleOrdinal, roleRepeat:
		return !p.isSecondAsTime(t)
	case roleParticle:
		return pieceAfter(t, p.end).info.irish
	}
	// A numeral starts a run only when glued to nothing ("5th" is read
	// by the date detectors as it is).
	return p.numeral && (p.end >= len(t) || !isLetter(t[p.end]))
}

// isSecondAsTime: "second" is an ordinal only before "of" or a month.
func (p piece) isSecondAsTime(t string) bool {
	if p.info.role != roleOrdinal || p.info.value != 2 {
		return false
	}
	next := nextWord(t, p.end)
	return next != "of" && !monthWords[next]
}

// nextWord is the next word after end, in lower case ("" past the end).
func nextWord(t string, end int) string {
	i := end
	for i < len(t) && (t[i] == ' ' || t[i] == ',') {
		i++
	}
	j := i
	for j < len(t) && isLetter(t[j]) {
		j++
	}
	return strings.ToLower(t[i:j])
}

// joinsRun: p continues the number being read in run.
func joinsRun(t string, run []piece, p piece) bool {
	if len(run) == 0 {
		return false
	}
	last := run[len(run)-1]
	if last.info.role == roleOrdinal {
		return false
	}
	gap := t[last.end:p.start]
	switch gap {
	case " ", "-":
	case ", ":
		if !isSingleDigit(last) || !isSingleDigit(p) {
			return false
		}
	default:
		return false
	}
	switch p.info.role {
	case roleDigit, roleZero, roleTeen, roleTens, roleOrdinal, roleRepeat:
		return !p.isSecondAsTime(t)
	case roleHundred, roleThousand:
		return last.info.role != roleRepeat
	case roleAnd:
		return last.info.role == roleHundred || last.info.role == roleThousand
	case roleParticle:
		// "a" joins only before an Irish digit.
		next := pieceAfter(t, p.end)
		return next.info.irish
	}
	if p.numeral && (p.end >= len(t) || !isLetter(t[p.end])) {
		return true
	}
	return false
}

func isSingleDigit(p piece) bool {
	return p.info.role == roleDigit || p.info.role == roleZero || p.numeral && p.end-p.start == 1
}

// pieceAfter is the piece one space after end.
func pieceAfter(t string, end int) piece {
	if end+1 < len(t) && t[end] == ' ' && isPieceStart(t[end+1]) {
		return pieceAt(t, end+1)
	}
	return piece{}
}

// readNumberRun writes a run of number pieces as digits: with "hundred"
// or "thousand" as the number they make ("four hundred and eighty-one"),
// otherwise as the digits of each part side by side ("oh eight seven",
// "nineteen eighty-two", "double four"); a closing ordinal keeps its
// suffix ("twenty-first" is "21st").
func readNumberRun(t string, run []piece) (edit, bool) {
	// Trim what cannot end a number.
	for len(run) > 0 {
		r := run[len(run)-1].info.role
		if r != roleAnd && r != roleParticle && r != roleRepeat {
			break
		}
		run = run[:len(run)-1]
	}
	words, zerosOnly := 0, true
	for _, p := range run {
		if !p.numeral && p.info.role != roleParticle && p.info.role != roleAnd {
			words++
		}
		if p.info.role != roleZero {
			zerosOnly = false
		}
	}
	if words == 0 || zerosOnly {
		return edit{}, false
	}
	var digits string
	if hasMultiplier(run) {
		digits = strconv.Itoa(numberValue(t, run))
	} else {
		digits = sideBySide(t, run)
	}
	last := run[len(run)-1]
	if last.info.role == roleOrdinal {
		digits += ordinalSuffix(digits)
	}
	return edit{run[0].start, last.end, digits}, true
}

// numberValue is the number a run with "hundred" or "thousand" makes.
func numberValue(t string, run []piece) int {
	total, cur := 0, 0
	for _, p := range run {
		switch p.info.role {
		case roleHundred:
			cur = max(cur, 1) * 100
		case roleThousand:
			total += max(cur, 1) * 1000
			cur = 0
		case roleDigit, roleTeen, roleTens, roleOrdinal:
			cur += p.info.value
		case roleNone:
			if p.numeral {
				cur += atoi(t[p.start:p.end])
			}
		}
	}
	return total + cur
}

// sideBySide writes each part of a run as its digits, one after the
// other: a tens word takes the unit after it ("eighty-two"), "double"
// and "triple" repeat the digit after them.
func sideBySide(t string, run []piece) string {
	var b strings.Builder
	for i := 0; i < len(run); i++ {
		p := run[i]
		switch p.info.role {
		case roleParticle:
		case roleRepeat:
			if i+1 < len(run) && isSingleDigit(run[i+1]) {
				b.WriteString(strings.Repeat(digitText(t, run[i+1]), p.info.value))
				i++
			}
		case roleTens:
			v := p.info.value
			if i+1 < len(run) && (run[i+1].info.role == roleDigit || run[i+1].info.role == roleOrdinal) && run[i+1].info.value < 10 && run[i+1].info.value > 0 {
				v += run[i+1].info.value
				i++
			}
			b.WriteString(strconv.Itoa(v))
		case roleNone:
			b.WriteString(t[p.start:p.end])
		default:
			b.WriteString(digitText(t, p))
		}
	}
	return b.String()
}

func hasMultiplier(run []piece) bool {
	for _, p := range run {
		if p.info.role == roleHundred || p.info.role == roleThousand {
			return true
		}
	}
	return false
}

func digitText(t string, p piece) string {
	if p.numeral {
		return t[p.start:p.end]
	}
	return strconv.Itoa(p.info.value)
}

func ordinalSuffix(n string) string {
	if len(n) >= 2 && n[len(n)-2] == '1' {
		return "th"
	}
	switch n[len(n)-1] {
	case '1':
		return "st"
	case '2':
		return "nd"
	case '3':
		return "rd"
	}
	return "th"
}

// spaceAround: the piece stands between spaces.
func spaceAround(t string, p piece) bool {
	return p.start > 0 && t[p.start-1] == ' ' && p.end < len(t) && t[p.end] == ' '
}

// localByte and domainByte are the bytes of an address's local part and
// of a domain label.
func localByte(c byte) bool  { return isAlnum(c) || strings.IndexByte("._%+'-", c) >= 0 }
func domainByte(c byte) bool { return isAlnum(c) || c == '-' || c == '.' }

// emailInWords reads an e-mail address around the word for '@' at p: a
// local part just before it, then domain labels joined by dots or dot
// words, ending in a top-level domain of letters. English "at" in lower
// or title case needs a dot word too: "the guidance at revenue.ie" is
// prose. It returns the edits writing the signs.
func emailInWords(t string, at piece) ([]edit, bool) {
	localStart, edits, ok := localPartBefore(t, at)
	if !ok {
		return nil, false
	}
	localEnd := at.start - 1
	edits = append(edits, edit{localEnd, at.end + 1, "@"})
	domain, dotWords, ok := domainAfter(t, at)
	if !ok {
		return nil, false
	}
	// "AT" in capitals stands for '@' unless the words around it are in
	// capitals too (a heading: "APPLY AT REVENUE.IE"); Irish "ag" is an
	// everyday word ("ag obair"), as "at" is.
	word := t[at.start:at.end]
	strong := at.info.lang != 'e' && at.info.lang != 'g' ||
		word == "AT" && strings.ToUpper(t[localStart:localEnd]) != t[localStart:localEnd]
	if !strong && dotWords == 0 {
		return nil, false
	}
	return append(edits, domain...), true
}

// localPartBefore reads the local part before the word for '@': the
// word before it, and words joined to that by dot words ("jane dot roe
// at ..."). It returns where the part starts and the dot words' edits.
func localPartBefore(t string, at piece) (int, []edit, bool) {
	localEnd := at.start - 1
	localStart := localEnd
	for localStart > 0 && localByte(t[localStart-1]) {
		localStart--
	}
	if localStart == localEnd || !isAlnum(t[localStart]) || !wordBoundaryBefore(t, localStart) {
		return 0, nil, false
	}
	var edits []edit
	for n := 0; n < 3; n++ {
		d, ok := dotWordBefore(t, localStart)
		if !ok || !dotFits(at.info.lang, d.info.lang) {
			break
		}
		s := d.start - 1
		for s > 0 && localByte(t[s-1]) {
			s--
		}
		if s == d.start-1 || !isAlnum(t[s]) || !wordBoundaryBefore(t, s) {
			break
		}
		edits = append([]edit{{d.start - 1, d.end + 1, "."}}, edits...)
		localStart = s
	}
	return localStart, edits, true
}

// domainAfter reads the domain after the word for '@': labels joined by
// dots or dot words, the last a top-level domain of letters, with at
// least one dot. It returns the dot words' edits and their number.
func domainAfter(t string, at piece) ([]edit, int, bool) {
	var edits []edit
	i := at.end + 1
	dotWords, lastLabel, literalDot := 0, "", false
	for n := 0; n < 8; n++ {
		j := i
		for j < len(t) && domainByte(t[j]) {
			j++
		}
		label := strings.TrimRight(t[i:j], ".-")
		if label == "" || !isAlnum(label[0]) {
			return nil, 0, false
		}
		end := i + len(label)
		lastLabel = label
		if k := strings.LastIndexByte(label, '.'); k >= 0 {
			lastLabel = label[k+1:]
			literalDot = true
		}
		next := pieceAfter(t, end)
		if next.info.role == roleDot && dotFits(at.info.lang, next.info.lang) && next.end+1 < len(t) && t[next.end] == ' ' && isAlnum(t[next.end+1]) {
			edits = append(edits, edit{end, next.end + 1, "."})
			dotWords++
			i = next.end + 1
			continue
		}
		break
	}
	if !isTopLevelDomain(lastLabel) || dotWords == 0 && !literalDot {
		return nil, 0, false
	}
	return edits, dotWords, true
}

// wordBoundaryBefore: i starts a word (the text's start, white space or
// an opening bracket or quote before it), not the tail of a word with
// letters outside ASCII.
func wordBoundaryBefore(t string, i int) bool {
	return i == 0 || strings.IndexByte(" \t\n(<\"':;,", t[i-1]) >= 0
}

// dotWordBefore is a dot word standing one space before i, with a space
// before it.
func dotWordBefore(t string, i int) (piece, bool) {
	if i < 2 || t[i-1] != ' ' {
		return piece{}, false
	}
	j := i - 1
	s := j
	for s > 0 && isLetter(t[s-1]) {
		s--
	}
	if s == j || s == 0 || t[s-1] != ' ' {
		return piece{}, false
	}
	p := pieceAt(t, s)
	return p, p.info.role == roleDot && p.end == j
}

// isTopLevelDomain: two to twenty-four letters.
func isTopLevelDomain(s string) bool {
	if len(s) < 2 || len(s) > 24 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) {
			return false
		}
	}
	return true
}

// dottedWordsIP reads "81 dot 17 dot 4 dot 2" from the numeral p: four
// groups of one to three digits joined by dot words.
func dottedWordsIP(t string, p piece) ([]edit, int, bool) {
	if p.end-p.start > 3 {
		return nil, 0, false
	}
	var edits []edit
	end := p.end
	for range 3 {
		d := pieceAfter(t, end)
		if d.info.role != roleDot {
			return nil, 0, false
		}
		n := pieceAfter(t, d.end)
		if !n.numeral || n.end-n.start > 3 {
			return nil, 0, false
		}
		edits = append(edits, edit{end, n.start, "."})
		end = n.end
	}
	return edits, end, true
}

// spacedAtEdits drop the spaces around a '@' standing alone between a
// local part and a domain with a dot ("jane.roe @ example.com").
func spacedAtEdits(t string) []edit {
	var out []edit
	for i := 1; i+2 < len(t); i++ {
		if t[i] != '@' || t[i-1] != ' ' || t[i+1] != ' ' || i < 2 || !localByte(t[i-2]) {
			continue
		}
		j := i + 2
		for j < len(t) && domainByte(t[j]) {
			j++
		}
		domain := strings.TrimRight(t[i+2:j], ".-")
		k := strings.LastIndexByte(domain, '.')
		if k < 0 || !isTopLevelDomain(domain[k+1:]) {
			continue
		}
		out = append(out, edit{i - 1, i + 2, "@"})
	}
	return out
}

var monthWords = setOf("january", "february", "march", "april", "may", "june", "july", "august", "september",
	"october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec")
