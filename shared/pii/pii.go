// Package pii finds personal data in free text and property keys: e-mail
// addresses, phone numbers, IBANs, payment card numbers, Irish PPSNs, UK
// NINOs, IP addresses, passport numbers, dates of birth, vehicle
// registrations, Eircodes, UK postcodes, street addresses and names. It is
// the one detector set shared by the graph ingress guard (which rejects)
// and chat storage / LLM requests (which redact).
//
// Detectors read the text in one normal form (see Normalize) and with the
// separators inside numbers taken out, so zero-width, tag and bidi
// characters, other scripts' digits, look-alike letters, entities and
// percent-escapes, numbers and the signs of an address written in words,
// defanged forms and "087/123/4567" hide nothing; a match is reported as
// the span of the original text.
//
// Detectors favour precision where a checksum exists (IBAN mod-97, Luhn,
// PPSN check letter) so that regulatory text full of rates, amounts and
// years is not flagged.
package pii

import (
	"net/netip"
	"regexp"
	"slices"
	"sort"
	"strings"

	"regintel/shared/memo"
)

// Kind names a category of personal data. Its string is used in redaction
// markers and log fields, never the matched value.
type Kind string

const (
	KindEmail Kind = "EMAIL"
	KindPhone Kind = "PHONE"
	KindIBAN  Kind = "IBAN"
	KindCard  Kind = "CARD"
	KindPPSN  Kind = "PPSN"
	KindNINO  Kind = "NINO"
	KindIP    Kind = "IP_ADDRESS"

	KindPassport   Kind = "PASSPORT"
	KindDOB        Kind = "DATE_OF_BIRTH"
	KindVehicleReg Kind = "VEHICLE_REG"
	KindEircode    Kind = "EIRCODE"
	KindPostcode   Kind = "UK_POSTCODE"
	KindAddress    Kind = "ADDRESS"
	KindName       Kind = "PERSON_NAME"
)

// AllKinds lists every kind in detection priority order: when two matches
// overlap, the earlier kind wins (an e-mail local part full of digits is an
// e-mail, not a phone number).
var AllKinds = []Kind{KindEmail, KindIBAN, KindCard, KindPPSN, KindNINO, KindPassport, KindIP, KindDOB,
	KindPhone, KindVehicleReg, KindEircode, KindPostcode, KindAddress, KindName}

// Match is one detected span, as byte offsets into the searched text.
type Match struct {
	Kind  Kind
	Start int
	End   int
}

// Marker is the text that replaces a match of kind k in redacted output.
func Marker(k Kind) string { return "[REDACTED:" + string(k) + "]" }

// Find returns every match of every kind, non-overlapping, ordered by start.
func Find(text string) []Match { return FindKinds(text, AllKinds...) }

// FindKinds is Find restricted to the given kinds (priority still follows
// AllKinds). The detectors read every derived form of the text (see Fold
// and forms), and each match is reported as the span of the original text
// it came from, so a disguised value is found and redacted whole.
func FindKinds(text string, kinds ...Kind) []Match { return findKinds(text, kinds) }

func findKinds(text string, kinds []Kind) []Match {
	want := make(map[Kind]bool, len(kinds))
	for _, k := range kinds {
		want[k] = true
	}
	var all []Match
	fs := forms(text)
	// The forms differ only in separators inside numbers: their words,
	// cues and names are the base form's.
	words := wordShapeOf(fs[0].text)
	compactWant := make(map[Kind]bool, len(want))
	for k := range want {
		compactWant[k] = !readsSeparators[k]
	}
	for i, f := range fs {
		w := want
		if i > 0 {
			w = compactWant
		}
		for _, m := range findIn(f, w, words) {
			m.Start, m.End = f.span(m.Start, m.End)
			all = append(all, m)
		}
	}
	return mergeSpans(all)
}

// readsSeparators are the kinds whose values keep their separators (an
// e-mail's dots, an IP's, a date's slashes) or hold no digits to compact:
// the compacted forms (see forms) only serve the others.
var readsSeparators = map[Kind]bool{KindEmail: true, KindIP: true, KindDOB: true, KindAddress: true, KindName: true}

// mergeSpans orders matches by start and merges those that overlap (the
// same value found in two forms, or two values sharing one character of
// the original); the earlier match names the kind.
func mergeSpans(ms []Match) []Match {
	sort.SliceStable(ms, func(i, j int) bool {
		if ms[i].Start != ms[j].Start {
			return ms[i].Start < ms[j].Start
		}
		return priority(ms[i].Kind) < priority(ms[j].Kind)
	})
	var out []Match
	for _, m := range ms {
		if n := len(out); n > 0 && m.Start < out[n-1].End {
			out[n-1].End = max(out[n-1].End, m.End)
			continue
		}
		out = append(out, m)
	}
	return out
}

func priority(k Kind) int {
	for i, have := range AllKinds {
		if have == k {
			return i
		}
	}
	return len(AllKinds)
}

// findIn runs the wanted detectors on one form, highest priority first;
// a match overlapping one already accepted is dropped. Every kind but
// names holds a digit, an '@' or a "::" (an address its house number), so
// those detectors read only the regions around them (see regions), each
// gated by its own shape: the work grows with the text, and most of a
// regulatory answer (rates, years, section numbers) is gated out.
func findIn(f folded, want map[Kind]bool, words wordShape) []Match {
	text := f.text
	acc := acceptor{text: text}
	rs := kindRegions{text: text, words: words}
	for _, k := range AllKinds {
		if !want[k] {
			continue
		}
		if k == KindName {
			if words.mayHoldName() || hasIntroInOtherScript(text) {
				acc.accept(detectors[k](text), 0)
			}
			continue
		}
		spans, gated := rs.spansFor(k)
		for i := range spans {
			r := &spans[i]
			if f.joins != nil && !f.holdsJoin(r.start, r.end) {
				continue // what it holds, the base form holds
			}
			if hold, known := quickMayHold(k, text[r.start:r.end]); known {
				if !hold {
					continue
				}
			} else if !gated {
				if r.shape == nil {
					sh := shapeOf(text[r.start:r.end])
					r.shape = &sh
				}
				if !r.shape.mayHold(k) {
					continue
				}
			}
			acc.accept(detectors[k](text[r.start:r.end]), r.start)
		}
	}
	return acc.accepted
}

// acceptor keeps the matches of one form, highest priority first.
type acceptor struct {
	text     string
	accepted []Match
	// covered marks bytes already claimed by a higher-priority match; it
	// keeps overlap checks linear in the text however many matches there are.
	covered []bool
}

// accept takes each match (at offset in the text) that overlaps none
// already accepted.
func (a *acceptor) accept(ms []Match, offset int) {
	for _, m := range ms {
		m.Start, m.End = m.Start+offset, m.End+offset
		if a.covered == nil {
			a.covered = make([]bool, len(a.text))
		}
		if a.overlaps(m) {
			continue
		}
		for i := m.Start; i < m.End; i++ {
			a.covered[i] = true
		}
		a.accepted = append(a.accepted, m)
	}
}

func (a *acceptor) overlaps(m Match) bool {
	for i := m.Start; i < m.End; i++ {
		if a.covered[i] {
			return true
		}
	}
	return false
}

// kindRegions finds, per kind, the regions of one form its detector
// reads; the digit groups and the cue regions are found once.
type kindRegions struct {
	text         string
	words        wordShape
	narrow, wide []region
	clusters     []cluster
	anchored     map[Kind][]region
	marks        *marks
}

// scan finds the form's marks and digit clusters, once.
func (rs *kindRegions) scan() {
	if rs.marks == nil {
		m, clusters := scanDigits(rs.text)
		rs.marks, rs.clusters = &m, clusters
	}
}

// sharedAnchors maps a kind to the kind whose anchor rule it uses.
var sharedAnchors = map[Kind]Kind{KindEircode: KindVehicleReg, KindPostcode: KindVehicleReg}

// spansFor returns the kind's regions, and whether their anchors or digit
// groups already gate them (no shape needed).
func (rs *kindRegions) spansFor(k Kind) ([]region, bool) {
	if rule, ok := anchorRules[k]; ok {
		// Kinds with one anchor share its regions, and so the shapes
		// read from them.
		if same, ok := sharedAnchors[k]; ok {
			k = same
		}
		if rs.anchored == nil {
			rs.anchored = map[Kind][]region{}
		}
		if _, done := rs.anchored[k]; !done {
			rs.scan()
			rs.anchored[k] = anchoredRegions(rs.text, rule, rs.marks)
		}
		return rs.anchored[k], true
	}
	if least := leastDigits[k]; least > 0 && !rs.words.cueFor(k) {
		// Only the digit groups long enough for the kind.
		rs.scan()
		return clusterRegions(rs.text, rs.clusters, least, k), true
	}
	if rs.words.cueFor(k) {
		// The cue may stand a few words before the number.
		if rs.wide == nil {
			rs.wide = regions(rs.text, wideBefore, wideAfter)
		}
		return rs.wide, false
	}
	if rs.narrow == nil {
		rs.narrow = regions(rs.text, narrowMargin, narrowMargin)
	}
	return rs.narrow, false
}

// quickMayHold is a necessary condition for a match of the kinds whose
// shape one short scan of a region tells (their anchors are loose: a
// letter by a digit, a house number); known is false for the others,
// which textShape.mayHold answers.
func quickMayHold(k Kind, t string) (hold, known bool) {
	switch k {
	case KindVehicleReg:
		return hasRegShape(t), true
	case KindEircode:
		return hasEircodeShape(t), true
	case KindPostcode:
		if !hasInwardCode(t) {
			return false, true
		}
		w := wordShapeOf(t)
		return w.capsNextToDigit || w.lowerNextToDigit, true
	case KindAddress:
		return wordShapeOf(t).street, true
	}
	return false, false
}

// hasInwardCode: a digit and two letters ending a word, as a UK postcode
// ends ("1AA").
func hasInwardCode(t string) bool {
	for i := 0; i+2 < len(t); i++ {
		if isDigit(t[i]) && isLetter(t[i+1]) && isLetter(t[i+2]) && (i+3 == len(t) || !isWordByte(t[i+3])) {
			return true
		}
	}
	return false
}

// leastDigits is, for the kinds found by their digits alone, the fewest
// grouped digits a match holds (see textShape.mayHold).
var leastDigits = map[Kind]int{KindPhone: 8, KindCard: 13, KindPPSN: 7, KindNINO: 6, KindPassport: 7, KindDOB: 4}

// cluster is a run of digits each within maxDigitGap separators of the
// last (as textShape counts them): text[start:end], n digits.
type cluster struct{ start, end, n int }

func digitClusters(text string) []cluster {
	_, clusters := scanDigits(text)
	return clusters
}

// scanDigits reads text once for its marks (see marks) and its digit
// clusters.
func scanDigits(text string) (marks, []cluster) {
	var m marks
	clusters := []cluster{}
	cur, gap := cluster{start: -1}, 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; digitScanClass[c] {
		case scanDigit:
			if i == 0 || !isDigit(text[i-1]) {
				m.runStarts = append(m.runStarts, i)
			}
			if i+1 == len(text) || !isDigit(text[i+1]) {
				m.runEnds = append(m.runEnds, i)
			}
			if cur.start < 0 || gap > maxDigitGap {
				if cur.start >= 0 {
					clusters = append(clusters, cur)
				}
				cur = cluster{start: i}
			}
			cur.n++
			cur.end = i + 1
			gap = 0
		case scanGap:
			if cur.start >= 0 {
				gap++
			}
		default:
			switch c {
			case '@':
				m.atSigns = append(m.atSigns, i)
			case ':':
				m.colons = append(m.colons, i)
			}
			if cur.start >= 0 {
				clusters = append(clusters, cur)
			}
			cur, gap = cluster{start: -1}, 0
		}
	}
	if cur.start >= 0 {
		clusters = append(clusters, cur)
	}
	return m, clusters
}

// digitScanClass sorts bytes for scanDigits: digits, the separators and
// brackets a digit group may hold, and the rest.
var digitScanClass = func() (t [256]uint8) {
	for c := range 256 {
		switch b := byte(c); {
		case isDigit(b):
			t[c] = scanDigit
		case isSeparator(b) || b == '(' || b == ')':
			t[c] = scanGap
		}
	}
	return t
}()

const (
	scanOther = iota
	scanDigit
	scanGap
)

// clusterFits is what the digit group itself must show for a match of the
// kind to hold it: a phone number's trunk 0 or '+', a PPSN's check letter
// after it, a NINO's letters either side, a card's issuer digit, a
// passport's letters before it, a date of birth's year.
func clusterFits(text string, c cluster, k Kind) bool {
	letterBefore := c.start > 0 && isLetter(text[c.start-1]) || c.start > 1 && text[c.start-1] == ' ' && isLetter(text[c.start-2])
	letterAfter := c.end < len(text) && isLetter(text[c.end]) ||
		c.end+1 < len(text) && (isSeparator(text[c.end]) || text[c.end] == ' ') && isLetter(text[c.end+1])
	switch k {
	case KindPhone:
		return c.start > 0 && text[c.start-1] == '+' || c.start > 1 && text[c.start-2] == '+' ||
			digitsFromTrunkZero(text[c.start:c.end]) >= leastDigits[KindPhone]
	case KindPPSN:
		// Seven digits in a row and no more (a word starts with them), then
		// the check letter.
		first := c.end - 7
		return letterAfter && first >= c.start && isPlainDigits(text[first:c.end]) && (first == 0 || !isWordByte(text[first-1]))
	case KindNINO:
		// Six digits between the letters: a letter ends a group of digits.
		return letterBefore && letterAfter && c.n == 6
	case KindPassport:
		// Two capitals, then seven digits, with at most a space between
		// (after the word passport, any number: see cueFor).
		p := c.start
		if p > 2 && text[p-1] == ' ' {
			p--
		}
		return p > 1 && isUpper(text[p-1]) && isUpper(text[p-2]) && c.end-c.start >= 7 &&
			isPlainDigits(text[c.start:c.start+7])
	case KindDOB:
		// A numeric date holds six digits; a date with the month in words
		// ("5th March 1982") only its year.
		return holdsBirthYear(text[c.start:c.end]) && (c.n >= 6 || monthBefore(text, c.start))
	}
	return true
}

// monthBefore: a month's name is one of the two words before i.
func monthBefore(text string, i int) bool {
	for range 2 {
		for i > 0 && (text[i-1] == ' ' || text[i-1] == ',' || text[i-1] == '.') {
			i--
		}
		j := i
		for j > 0 && isLetter(text[j-1]) {
			j--
		}
		if j == i {
			return false
		}
		var buf [24]byte
		if monthWords[string(lowerASCII(text[j:i], &buf))] {
			return true
		}
		for i > j || i > 0 && isAlnum(text[i-1]) {
			i--
		}
	}
	return false
}

func isPlainDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// digitsFromTrunkZero counts the digits of s from its first group that
// starts with 0 (a trunk prefix, or the 00 of an international number):
// a national number holds them all ("2003-01-01" holds four).
func digitsFromTrunkZero(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '0' && (i == 0 || !isDigit(s[i-1])) {
			n := 0
			for ; i < len(s); i++ {
				if isDigit(s[i]) {
					n++
				}
			}
			return n
		}
	}
	return 0
}

// holdsBirthYear: a group of four digits that is a year from 1900 to
// adultYear, as every numeric date of birth has.
func holdsBirthYear(s string) bool {
	latest := adultYear()
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j-i == 4 {
			if y := atoi(s[i:j]); y >= 1900 && y <= latest {
				return true
			}
		}
		i = j
	}
	return false
}

// clusterRegions are the regions (narrowMargin either side, widened to
// white space) around the clusters of at least least digits.
func clusterRegions(text string, clusters []cluster, least int, k Kind) []region {
	var out []region
	for _, c := range clusters {
		if c.n < least || !clusterFits(text, c, k) {
			continue
		}
		out = addRegion(out, text, max(0, c.start-narrowMargin), min(len(text), c.end+narrowMargin))
	}
	return out
}

// addRegion widens [start, end) to whole words of text and adds it to out,
// merged with the last region when they touch (regions come in order).
func addRegion(out []region, text string, start, end int) []region {
	for start > 0 && !isSpaceByte(text[start-1]) {
		start--
	}
	for end < len(text) && !isSpaceByte(text[end]) {
		end++
	}
	if n := len(out); n > 0 && start <= out[n-1].end {
		out[n-1].end = max(out[n-1].end, end)
		return out
	}
	return append(out, region{start: start, end: end})
}

// region is a stretch of a text around digits, '@' or "::", with its
// shape once read.
type region struct {
	start, end int
	shape      *textShape
}

// How far a match may reach from the digits, '@' or "::" it holds: an
// IBAN's letter groups, a NINO's letters, an e-mail address (one word)
// are within narrowMargin; a cue word before a date of birth or a
// passport number, and a street's name after the house number, within
// the wide margins.
const (
	narrowMargin = 16
	wideBefore   = 32
	wideAfter    = 48
)

// regions are the stretches of text from before bytes ahead of a digit,
// an '@' or a "::" to after bytes past it, widened to white space so no
// word is cut (a region's edges are word boundaries in the text too),
// overlapping ones merged.
func regions(text string, before, after int) []region {
	var out []region
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !isDigit(c) && c != '@' && (c != ':' || i+1 >= len(text) || text[i+1] != ':') {
			continue
		}
		if n := len(out); n > 0 && i+1+after <= out[n-1].end {
			continue // its region is inside the last one
		}
		out = addRegion(out, text, max(0, i-before), min(len(text), i+1+after))
	}
	return out
}

// Contains reports whether text holds personal data of any of the kinds
// (all kinds when none are given) and, if so, the first kind found. It
// remembers its answers on short texts (a concept's label, kind and
// definition, checked on every turn that names them); text that is
// redacted (messages, answers) is read afresh each time.
func Contains(text string, kinds ...Kind) (Kind, bool) {
	if len(kinds) == 0 {
		kinds = AllKinds
	}
	var ms []Match
	if len(text) > memo.ShortText {
		ms = findKinds(text, kinds)
	} else {
		ms = rememberedFind(text, kinds)
	}
	if len(ms) == 0 {
		return "", false
	}
	return ms[0].Kind, true
}

// Redact replaces every match with its typed marker (for example
// "[REDACTED:EMAIL]") in the original text, drops the invisible
// characters (see StripInvisible) and returns the distinct kinds found, in
// order of first appearance. Taking a value or an invisible character out
// can leave its neighbours a shape of their own (a bracket no longer glued
// to digits), so it reads the result again until nothing is found;
// markers hold no digits, so this ends.
func Redact(text string) (string, []Kind) {
	var kinds []Kind
	for range maxRedactRounds {
		ms := Find(text)
		if len(ms) == 0 {
			visible := StripInvisible(text)
			if visible == text {
				break
			}
			text = visible
			continue
		}
		text = replaceMatches(text, ms)
		for _, m := range ms {
			if !slices.Contains(kinds, m.Kind) {
				kinds = append(kinds, m.Kind)
			}
		}
	}
	return StripInvisible(text), kinds
}

// maxRedactRounds bounds Redact's passes; real text needs one or two.
const maxRedactRounds = 8

func replaceMatches(text string, ms []Match) string {
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, m := range ms {
		b.WriteString(text[last:m.Start])
		b.WriteString(Marker(m.Kind))
		last = m.End
	}
	b.WriteString(text[last:])
	return b.String()
}

// textShape is what a single pass over the text tells the detectors, so
// they skip their patterns on text that cannot hold a match: most chat text
// and captured labels have no '@', and their digits come in short runs
// (rates, years, section numbers) rather than in the long groups of phone,
// card, PPSN, NINO and IP numbers.
type textShape struct {
	// cluster is the most digits in one stretch where each digit follows
	// the previous one across at most maxDigitGap separators (space, dot,
	// hyphen, brackets): the widest grouping any detector accepts, e.g.
	// "(01) 234" or "+353 (0)87".
	cluster int
	// colonPair: two colons with at most four hex digits between them, as
	// every IPv6 address has ("::", ":db8:").
	colonPair bool
	// dottedQuad: digits joined by three single dots, as in an IPv4 address.
	dottedQuad bool
	at         bool
	ibanStart  bool // two letters then two digits at the start of a word
	words      wordShape
}

const maxDigitGap = 3

func shapeOf(text string) textShape {
	s := textShape{words: wordShapeOf(text)}
	run, gap := 0, 0
	hex := -1 // hex digits since the last colon; -1: no colon open
	dots, dotAfterDigit := 0, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case isDigit(c):
			if dotAfterDigit {
				dots++
				s.dottedQuad = s.dottedQuad || dots >= 3
			}
			dotAfterDigit = false
		case c == '.' && i > 0 && isDigit(text[i-1]):
			dotAfterDigit = true
		default:
			dots, dotAfterDigit = 0, false
		}
		if c == ':' {
			if hex >= 0 {
				s.colonPair = true
			}
			hex = 0
		} else if hex >= 0 && isHex(c) && hex < 4 {
			hex++
		} else {
			hex = -1
		}
		switch {
		case c >= '0' && c <= '9':
			if gap > maxDigitGap {
				run = 0
			}
			run++
			gap = 0
			s.cluster = max(s.cluster, run)
		case isSeparator(c) || c == '(' || c == ')':
			gap++
		default:
			run, gap = 0, 0
			switch {
			case c == '@':
				s.at = true
			case !s.ibanStart && isLetter(c) && i+3 < len(text) && (i == 0 || !isWordByte(text[i-1])):
				s.ibanStart = isLetter(text[i+1]) && isDigit(text[i+2]) && isDigit(text[i+3])
			}
		}
	}
	return s
}

func hasRegShape(t string) bool {
	for i := 0; i+3 < len(t); i++ {
		if isUpper(t[i]) && isUpper(t[i+1]) && isDigit(t[i+2]) && isDigit(t[i+3]) && ukRegTail(t, i+4) {
			return true
		}
		if !isDigit(t[i]) || !isDigit(t[i+1]) {
			continue
		}
		j := i + 2
		for j < len(t) && isDigit(t[j]) {
			j++
		}
		j = skipOneSeparator(t, j)
		caps := j
		for j < len(t) && isUpper(t[j]) {
			j++
		}
		if j == caps || j-caps > 2 || !countyIndexMarks[t[caps:j]] {
			continue
		}
		if j = skipOneSeparator(t, j); j < len(t) && isDigit(t[j]) {
			return true
		}
	}
	return false
}

// ukRegTail: three capitals ending a word at j, after at most one space
// (the "CDE" of "AB12 CDE").
func ukRegTail(t string, j int) bool {
	if j < len(t) && t[j] == ' ' {
		j++
	}
	return j+3 <= len(t) && isUpper(t[j]) && isUpper(t[j+1]) && isUpper(t[j+2]) && (j+3 == len(t) || !isWordByte(t[j+3]))
}

// countyIndexMarks are the county and city marks of an Irish
// registration (as vehicleIEPattern lists them).
var countyIndexMarks = setOf("CE", "CN", "CW", "DL", "KE", "KK", "KY", "LD", "LH", "LK", "LM", "LS", "MH", "MN", "MO",
	"OY", "RN", "SO", "TN", "TS", "WD", "WH", "WW", "WX", "C", "D", "G", "L", "T", "W")

func hasEircodeShape(t string) bool {
	for i := 0; i+2 < len(t); i++ {
		if !isLetter(t[i]) || i > 0 && isAlnum(t[i-1]) {
			continue
		}
		j := i + 3
		switch {
		case isDigit(t[i+1]) && isDigit(t[i+2]):
		case (t[i] == 'D' || t[i] == 'd') && t[i+1] == '6' && (t[i+2] == 'W' || t[i+2] == 'w'):
		default:
			continue
		}
		j = skipOneSeparator(t, j)
		k := j
		for k < len(t) && isAlnum(t[k]) {
			k++
		}
		if k-j == 4 {
			return true
		}
	}
	return false
}

// skipOneSeparator steps over one space or dash at j.
func skipOneSeparator(t string, j int) int {
	if j < len(t) && (t[j] == ' ' || t[j] == '-') {
		return j + 1
	}
	return j
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isUpper(c byte) bool  { return c >= 'A' && c <= 'Z' }
func isHex(c byte) bool    { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// mayHold is a necessary condition for a match of kind k: the fewest
// grouped digits (or the '@', the colon pair, the IBAN start) any accepted
// match of that kind contains.
func (s textShape) mayHold(k Kind) bool {
	switch k {
	case KindEmail:
		return s.at
	case KindPhone:
		return s.cluster >= 8
	case KindIBAN:
		return s.ibanStart
	case KindCard:
		return s.cluster >= 13
	case KindPPSN:
		return s.cluster >= 7
	case KindNINO:
		return s.cluster >= 6
	case KindIP:
		return s.dottedQuad || s.colonPair
	case KindPassport:
		return s.cluster >= 7 || s.words.passportCue
	case KindDOB:
		return s.cluster >= 4 || s.words.birthCue
	case KindVehicleReg, KindPostcode, KindEircode, KindAddress:
		return true // their own scans say (see quickMayHold)
	case KindName:
		return s.words.mayHoldName()
	}
	return true
}

var detectors = map[Kind]func(string) []Match{
	KindEmail: findEmails,
	KindPhone: findPhones,
	KindIBAN:  findIBANs,
	KindCard:  findCards,
	KindPPSN:  findPPSNs,
	KindNINO:  findNINOs,
	KindIP:    findIPs,

	KindPassport:   findPassports,
	KindDOB:        findDatesOfBirth,
	KindVehicleReg: findVehicleRegs,
	KindEircode:    findEircodes,
	KindPostcode:   findPostcodes,
	KindAddress:    findAddresses,
	KindName:       findNames,
}

// isWordByte reports whether b would continue a token (so a match next to it
// is part of something longer, not a standalone identifier).
func isWordByte(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b == '_'
}

// standalone reports whether text[start:end] is not glued to a neighbouring
// letter or digit.
func standalone(text string, start, end int) bool {
	if start > 0 && isWordByte(text[start-1]) {
		return false
	}
	if end < len(text) && isWordByte(text[end]) {
		return false
	}
	return true
}

func digitsOf(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

var emailPattern = regexp.MustCompile(`[A-Za-z0-9._%+'-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}`)

func findEmails(text string) []Match {
	var out []Match
	for _, loc := range emailPattern.FindAllStringIndex(text, -1) {
		out = append(out, Match{KindEmail, loc[0], loc[1]})
	}
	return out
}

var (
	// International: +CC or 00CC, an optional "(0)" trunk prefix, then digit
	// groups separated by single spaces, dots or hyphens.
	intlPhonePattern = regexp.MustCompile(`(?:\+|\b00)[1-9]\d{0,2}(?:[ .-]?\(0\))?(?:[ .-]?\(?\d{1,5}\)?){1,6}`)
	// National IE/UK: a leading 0 (optionally in brackets with the area
	// code), then groups. Dots are not accepted here so decimals are not
	// phones...
	nationalPhonePattern = regexp.MustCompile(`\(?0\d{1,4}\)?(?:[ -]?\d{2,8}){0,3}`)
	// ...but three dotted groups after a leading 0 (087.123.4567) are: no
	// decimal or section number has that shape.
	dottedPhonePattern = regexp.MustCompile(`\b0\d{1,4}\.\d{3,4}\.\d{3,4}\b`)
)

func findPhones(text string) []Match {
	var out []Match
	for _, loc := range intlPhonePattern.FindAllStringIndex(text, -1) {
		s := text[loc[0]:loc[1]]
		n := len(digitsOf(strings.Replace(s, "(0)", "", 1)))
		if strings.HasPrefix(s, "00") {
			n -= 2
		}
		// E.164 allows at most 15 digits; fewer than 8 is not a reachable
		// number but more likely an amount or a reference.
		if n >= 8 && n <= 15 && standalone(text, loc[0], loc[1]) {
			out = append(out, Match{KindPhone, loc[0], loc[1]})
		}
	}
	for _, loc := range nationalPhonePattern.FindAllStringIndex(text, -1) {
		start := loc[0]
		if start > 0 && (text[start-1] == '+' || text[start-1] == '.' || text[start-1] == ',') {
			continue
		}
		n := len(digitsOf(text[loc[0]:loc[1]]))
		// IE numbers are 9-10 digits with the trunk 0 (01 234 5678,
		// 087 123 4567); UK ones 10-11 (020 7946 0958, 07700 900123).
		if n >= 9 && n <= 11 && standalone(text, loc[0], loc[1]) {
			out = append(out, Match{KindPhone, loc[0], loc[1]})
		}
	}
	for _, loc := range dottedPhonePattern.FindAllStringIndex(text, -1) {
		if n := len(digitsOf(text[loc[0]:loc[1]])); n >= 9 && n <= 11 && notAfterDot(text, loc[0]) && notBeforeDotDigit(text, loc[1]) {
			out = append(out, Match{KindPhone, loc[0], loc[1]})
		}
	}
	return out
}

func notAfterDot(text string, start int) bool { return start == 0 || text[start-1] != '.' }

func notBeforeDotDigit(text string, end int) bool {
	return end+1 >= len(text) || text[end] != '.' || text[end+1] < '0' || text[end+1] > '9'
}

// ibanLengths is the IBAN registry: each country's fixed IBAN length. A
// candidate from any other country, or of another length, is not an IBAN:
// random codes such as test ids pass the mod-97 check about once in 97.
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BI": 27,
	"BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18, "DO": 28,
	"EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
	"GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27,
	"JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25,
	"MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18,
	"NO": 15, "OM": 23, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33,
	"SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28,
	"TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}

var ibanStartPattern = regexp.MustCompile(`(?i)\b[A-Z]{2}\d{2} {0,3}[A-Z0-9]`)

func findIBANs(text string) []Match {
	var out []Match
	for _, loc := range ibanStartPattern.FindAllStringIndex(text, -1) {
		start := loc[0]
		if m, ok := ibanAt(text, start); ok {
			out = append(out, m)
		}
	}
	return out
}

// ibanAt walks an IBAN candidate from start, collecting alphanumerics and
// single spaces, and accepts the first length that fits the country and the
// mod-97 check and ends at a token boundary.
func ibanAt(text string, start int) (Match, bool) {
	country := strings.ToUpper(text[start : start+2])
	want, known := ibanLengths[country]
	if !known {
		return Match{}, false
	}
	var compact []byte
	for i := start; i < len(text) && len(compact) < 34; i++ {
		c := text[i]
		if c == ' ' {
			// Up to three spaces between groups ("IE29  AIBK").
			j := i
			for j < len(text) && j-i < 3 && text[j] == ' ' {
				j++
			}
			if j < len(text) && isAlnum(text[j]) && len(compact) > 0 {
				i = j - 1
				continue
			}
			break
		}
		if !isAlnum(c) {
			break
		}
		compact = append(compact, upper(c))
		n := len(compact)
		if n != want {
			continue
		}
		end := i + 1
		if end < len(text) && isWordByte(text[end]) {
			continue
		}
		if ibanValid(string(compact)) {
			return Match{KindIBAN, start, end}, true
		}
		break
	}
	return Match{}, false
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// ibanValid applies the ISO 13616 check: move the first four characters to
// the end, map letters to 10..35, and the number mod 97 must be 1.
func ibanValid(iban string) bool {
	if len(iban) < 15 || len(iban) > 34 {
		return false
	}
	rearranged := iban[4:] + iban[:4]
	rem := 0
	for i := 0; i < len(rearranged); i++ {
		c := rearranged[i]
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			v := int(c-'A') + 10
			rem = (rem*100 + v) % 97
		default:
			return false
		}
	}
	return rem == 1
}

// Card numbers: 13-19 digits, optionally grouped by single spaces or hyphens.
var cardPattern = regexp.MustCompile(`\b\d(?:[ -]?\d){12,18}\b`)

func findCards(text string) []Match {
	var out []Match
	for _, loc := range cardPattern.FindAllStringIndex(text, -1) {
		if loc[0] > 0 && (text[loc[0]-1] == '.' || text[loc[0]-1] == ',') {
			continue
		}
		digits := digitsOf(text[loc[0]:loc[1]])
		// Issuer prefixes in use start with 2-6 (Mastercard 2-series, Amex,
		// Visa, Mastercard, Discover/Maestro); a leading 0 or 1 is not a card.
		if digits[0] < '2' || digits[0] > '6' {
			continue
		}
		if luhnValid(digits) {
			out = append(out, Match{KindCard, loc[0], loc[1]})
		}
	}
	return out
}

// luhnValid reports whether the digit string passes the Luhn checksum.
func luhnValid(digits string) bool {
	sum := 0
	double := false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return len(digits) > 1 && sum%10 == 0
}

// PPSN: seven digits, a check letter, and an optional second letter. Written
// with a space before the letters ("1234567 T") they must be capitals, so a
// number followed by the word "a" is not read as one.
var (
	ppsnPattern       = regexp.MustCompile(`(?i)\b(\d{7})([A-W])([A-Z]?)\b`)
	spacedPPSNPattern = regexp.MustCompile(`\b(\d{7}) ([A-W])([A-Z]?)\b`)
)

func findPPSNs(text string) []Match {
	var out []Match
	locs := ppsnPattern.FindAllStringSubmatchIndex(text, -1)
	locs = append(locs, spacedPPSNPattern.FindAllStringSubmatchIndex(text, -1)...)
	for _, loc := range locs {
		digits := text[loc[2]:loc[3]]
		check := upper(text[loc[4]])
		second := byte(0)
		if loc[7] > loc[6] {
			second = upper(text[loc[6]])
		}
		if ppsnCheckLetter(digits, second) == check {
			out = append(out, Match{KindPPSN, loc[0], loc[1]})
		}
	}
	return out
}

// ppsnCheckLetter computes the PPSN check character: digits weighted 8..2,
// the optional second letter (A=1 .. Z=26, W=0) weighted 9, sum mod 23,
// where 0 is W and 1..22 are A..V.
func ppsnCheckLetter(digits string, second byte) byte {
	sum := 0
	for i := 0; i < 7; i++ {
		sum += int(digits[i]-'0') * (8 - i)
	}
	if second != 0 && second != 'W' {
		sum += int(second-'A'+1) * 9
	}
	r := sum % 23
	if r == 0 {
		return 'W'
	}
	return byte('A' + r - 1)
}

// NINO: two prefix letters (D, F, I, Q, U, V never used; O not second),
// six digits (optionally paired), and a suffix A-D.
var ninoPattern = regexp.MustCompile(`(?i)\b([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]) ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b`)

// ninoInvalidPrefixes are never allocated.
var ninoInvalidPrefixes = map[string]bool{"BG": true, "GB": true, "KN": true, "NK": true, "NT": true, "TN": true, "ZZ": true}

func findNINOs(text string) []Match {
	var out []Match
	for _, loc := range ninoPattern.FindAllStringSubmatchIndex(text, -1) {
		if ninoInvalidPrefixes[strings.ToUpper(text[loc[2]:loc[3]])] {
			continue
		}
		out = append(out, Match{KindNINO, loc[0], loc[1]})
	}
	return out
}

var (
	ipv4Pattern = regexp.MustCompile(`\b(?:\d{1,3}\.){3}\d{1,3}\b`)
	ipv6Pattern = regexp.MustCompile(`(?i)(?:[0-9a-f]{1,4}|:)?(?::[0-9a-f]{0,4}){2,7}(?:[0-9a-f]{1,4})?`)
)

func findIPs(text string) []Match {
	var out []Match
	for _, loc := range ipv4Pattern.FindAllStringIndex(text, -1) {
		// Part of a longer dotted number (a section reference 1.2.3.4.5).
		if loc[0] > 0 && text[loc[0]-1] == '.' {
			continue
		}
		if loc[1]+1 < len(text) && text[loc[1]] == '.' && text[loc[1]+1] >= '0' && text[loc[1]+1] <= '9' {
			continue
		}
		addr, err := netip.ParseAddr(text[loc[0]:loc[1]])
		if err == nil && addr.Is4() {
			out = append(out, Match{KindIP, loc[0], loc[1]})
		}
	}
	for _, loc := range ipv6Pattern.FindAllStringIndex(text, -1) {
		// "addr:2001:db8::1" matches from the label's colon; drop it.
		if text[loc[0]] == ':' && loc[1]-loc[0] > 1 && text[loc[0]+1] != ':' {
			loc[0]++
		}
		s := text[loc[0]:loc[1]]
		if strings.Count(s, ":") < 2 || len(strings.Trim(s, ":")) < 3 {
			continue
		}
		if loc[0] > 0 && isWordByte(text[loc[0]-1]) || loc[1] < len(text) && isWordByte(text[loc[1]]) {
			continue
		}
		addr, err := netip.ParseAddr(s)
		if err == nil && addr.Is6() {
			out = append(out, Match{KindIP, loc[0], loc[1]})
		}
	}
	return out
}
