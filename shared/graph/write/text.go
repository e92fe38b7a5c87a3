package write

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"regintel/shared/concept"
	"regintel/shared/jurisdiction"
	"regintel/shared/memo"
	"regintel/shared/pii"
)

// The allowlist a concept passes before it may reach the shared graph: its
// domain and kind from the vocabulary in package concept, its jurisdiction
// from the code list, and its labels, aliases and definition made only of
// what regulatory text is made of. Text is read after NFKC normalisation;
// anything not listed here is refused.

// Concept text limits, in characters after NFKC normalisation.
const (
	MaxConceptLabelChars = 120
	MaxDefinitionChars   = 600
)

const (
	ReasonDomainNotAllowed       Reason = "domain_not_in_vocabulary"
	ReasonKindNotAllowed         Reason = "kind_not_in_vocabulary"
	ReasonJurisdictionNotAllowed Reason = "jurisdiction_not_in_code_list"
	ReasonCharacterNotAllowed    Reason = "character_not_allowed"
	ReasonMixedScripts           Reason = "mixed_scripts"
	ReasonDigitsNotAllowed       Reason = "digits_not_in_documented_shape"
)

// checkVocabulary refuses a concept whose domain, kind or jurisdiction is
// not in the vocabulary. A kind outside concept.Kinds passes when it is
// well shaped: a capture of it stays with its conversation (Result.Held)
// until an official page names it, and an official concept of it is kept
// without aliases or definition (BareUnlessKnown).
func checkVocabulary(c concept.Concept) *Rejection {
	switch {
	case !concept.KnownDomain(c.Domain):
		return &Rejection{Label: "Concept", Field: "domain", Reason: ReasonDomainNotAllowed}
	case !concept.KnownKind(c.Kind) && !concept.WellShapedKind(c.Kind):
		return &Rejection{Label: "Concept", Field: "kind", Reason: ReasonKindNotAllowed}
	case !jurisdiction.Known(concept.IDPart(c.Jurisdiction, "GLOBAL")):
		return &Rejection{Label: "Concept", Field: "jurisdiction", Reason: ReasonJurisdictionNotAllowed}
	}
	return nil
}

// BareUnlessKnown returns c as the graph may hold it: a concept of a kind
// outside the vocabulary (one an official page named) keeps its id, parts
// and label, and loses the aliases and definition written with it.
func BareUnlessKnown(c concept.Concept) concept.Concept {
	if concept.KnownKind(c.Kind) {
		return c
	}
	c.AltLabels, c.Definition = nil, ""
	return c
}

// checkedTexts remembers checkConceptText's verdicts on short texts: the
// same labels and definitions are checked on every turn that names them.
var checkedTexts = memo.New[*Rejection](8192)

// checkConceptText checks one label, alias or definition.
func checkConceptText(field, s string) *Rejection {
	if len(s) > memo.ShortText {
		return checkConceptTextOnce(field, s)
	}
	key := pii.MemoKey(field+"\x00"+s, nil) // the verdict reads dates of birth, so the year
	rej, ok := checkedTexts.Get(key)
	if !ok {
		rej = checkConceptTextOnce(field, s)
		checkedTexts.Put(key, rej)
	}
	if rej == nil {
		return nil
	}
	copied := *rej // the caller's to fill in
	return &copied
}

func checkConceptTextOnce(field, s string) *Rejection {
	rej := func(r Reason) *Rejection { return &Rejection{Label: "Concept", Field: field, Reason: r} }
	n := norm.NFKC.String(s)
	limit := MaxConceptLabelChars
	if field == "definition" {
		limit = MaxDefinitionChars
	}
	if utf8.RuneCountInString(n) > limit {
		return rej(ReasonValueTooLong)
	}
	if kind, found := findPIIIn(s, pii.AllKinds); found {
		return &Rejection{Label: "Concept", Field: field, Reason: ReasonPIIValue, PIIKind: kind}
	}
	if !allowedCharacters(n) {
		return rej(ReasonCharacterNotAllowed)
	}
	if mixedScripts(n) {
		return rej(ReasonMixedScripts)
	}
	if !digitsInDocumentedShapes(n) {
		return rej(ReasonDigitsNotAllowed)
	}
	switch {
	case looksLikePersonName(n):
		return &Rejection{Label: "Concept", Field: field, Reason: ReasonPIIValue, PIIKind: pii.KindName}
	case hasUndatedFullDate(n):
		return &Rejection{Label: "Concept", Field: field, Reason: ReasonPIIValue, PIIKind: pii.KindDOB}
	}
	return nil
}

// allowedCharacters: letters, combining marks, ASCII digits, spaces and
// the punctuation and symbols regulatory text uses. Control and format
// characters (zero-width spaces, joiners, soft hyphens, direction marks)
// and other scripts' digits are refused.
func allowedCharacters(s string) bool {
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9', r == ' ':
		case unicode.IsLetter(r) || unicode.Is(unicode.Mn, r):
		case strings.ContainsRune(`.,;:!?'"’‘“”()[]/&%€£$+-–—§*#=<>`, r):
		default:
			return false
		}
	}
	return true
}

// mixedScripts reports whether the letters of s come from more than one
// script, or from a script other than Latin, Greek or Cyrillic (the
// scripts of the jurisdictions covered).
func mixedScripts(s string) bool {
	var seen *unicode.RangeTable
	for _, r := range s {
		if !unicode.IsLetter(r) {
			continue
		}
		var script *unicode.RangeTable
		for _, t := range []*unicode.RangeTable{unicode.Latin, unicode.Greek, unicode.Cyrillic} {
			if unicode.Is(t, r) {
				script = t
			}
		}
		if script == nil || (seen != nil && script != seen) {
			return true
		}
		seen = script
	}
	return false
}

// digitShapes are the only shapes a token with a digit may take: years and
// tax years, percentages, amounts, small numbers and rates, ordinals,
// durations ("12-month"), section numbers ("s.81", "472A", "46(1)(c)"),
// EU act numbers ("2006/112/EC", "2016/679"), and class or form codes
// ("A1", "P60", "CO2").
var digitShapes = regexp.MustCompile(`^(?:` + strings.Join([]string{
	`(?:19|20)\d{2}(?:[/-]\d{2})?`,
	`(?:0|[1-9]\d{0,2})(?:\.\d{1,2})?%`,
	`[€£$](?:0|[1-9]\d{0,2})(?:,\d{3})*(?:\.\d{2})?(?:m|bn|k)?`,
	`[1-9]\d{0,2}(?:,\d{3})+(?:\.\d{2})?`,
	`(?:0|[1-9]\d{0,2})(?:\.\d{1,2})?`,
	`[1-9]\d?(?:st|nd|rd|th)`,
	`[1-9]\d{0,2}-[a-z]+`,
	`(?:[sS]\.?)?[1-9]\d{0,3}[A-Z]{0,2}(?:\((?:\d{1,2}|[a-z]{1,4})\))*`,
	`(?:\d{2}|(?:19|20)\d{2})/\d{1,4}(?:/(?:EC|EU|EEC|Euratom))?`,
	`[A-Z]{1,3}\d{1,3}\+?`,
}, "|") + `)$`)

// digitsInDocumentedShapes: every whitespace-separated token holding a
// digit has a documented shape, and no two such tokens follow each other
// without a word or a list comma between them ("087 123 4567" is three
// small numbers, together a phone number).
func digitsInDocumentedShapes(s string) bool {
	prevDigits := false
	for _, raw := range strings.Fields(s) {
		tok := strings.TrimLeft(raw, `("'‘“[`)
		tok = strings.TrimRight(tok, `.,;:!?)"'’”]`)
		if !strings.ContainsAny(tok, "0123456789") {
			prevDigits = false
			continue
		}
		if prevDigits || !digitShapes.MatchString(tok) {
			return false
		}
		prevDigits = !strings.HasSuffix(raw, ",") && !strings.HasSuffix(raw, ";")
	}
	return true
}

var nameStopWords = map[string]bool{
	"the": true, "a": true, "an": true, "and": true, "or": true, "of": true, "for": true, "in": true, "on": true,
	"to": true, "at": true, "by": true, "as": true, "from": true, "under": true, "with": true, "if": true,
	"when": true, "this": true, "these": true, "that": true, "you": true, "your": true, "it": true, "its": true,
	"is": true, "are": true, "no": true, "not": true, "all": true, "each": true, "see": true, "de": true,
	"na": true, "an-": true, "ar": true, "do": true, "le": true,
}

var wordPattern = regexp.MustCompile(`[\p{L}\p{M}][\p{L}\p{M}'’-]*|[^\p{L}\p{M}\s]+`)

// looksLikePersonName: two or more capitalised words in a row (words of
// one to five capitals are acronyms, and short function words break a
// run) of which none is a regulatory term word (concept.TermWords). "Mary
// Murphy" and "Ask Seán Kelly" are names; "Capital Gains Tax", "Cáin
// Bhreisluacha" and "HMRC Guidance" are not.
func looksLikePersonName(s string) bool {
	run, hasTerm := 0, false
	for _, w := range wordPattern.FindAllString(s, -1) {
		first, _ := utf8.DecodeRuneInString(w)
		if unicode.IsUpper(first) && !isAcronym(w) && !nameStopWords[strings.ToLower(w)] {
			run++
			hasTerm = hasTerm || concept.IsTermWord(w)
			continue
		}
		if run >= 2 && !hasTerm {
			return true
		}
		run, hasTerm = 0, false
	}
	return run >= 2 && !hasTerm
}

func isAcronym(w string) bool {
	n := utf8.RuneCountInString(w)
	return n <= 5 && strings.ToUpper(w) == w
}

var (
	writtenDate = regexp.MustCompile(`(?i)\b\d{1,2}(?:st|nd|rd|th)?\s+(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\s+\d{4}\b`)
	effectWords = regexp.MustCompile(`(?i)\b(?:from|on|after|before|until|till|by|since|effective|dated|commencing|of|to|between|and)\s*$`)
)

// hasUndatedFullDate reports a full written date (day, month and year)
// that does not follow a word giving a legislative date its role ("from 1
// January 2025", "effective 6 April 2024"). A bare full date in a concept
// is more likely someone's birthday.
func hasUndatedFullDate(s string) bool {
	for _, loc := range writtenDate.FindAllStringIndex(s, -1) {
		if !effectWords.MatchString(s[:loc[0]]) {
			return true
		}
	}
	return false
}
