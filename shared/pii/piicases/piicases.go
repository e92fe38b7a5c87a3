// Package piicases is the one table of personal-data probes that the graph
// write guard, the redaction of stored and logged text, the fuzz targets'
// seed corpora and the end-to-end probes all read: the kinds the guard
// already knew, each hidden in the ways an attacker hides them, plus the
// kinds it did not look for. It also lists regulatory texts that must
// still pass, so a stricter guard cannot quietly refuse real content.
package piicases

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"regintel/shared/concept"
)

// Field says where a probe is placed in a captured concept.
type Field string

const (
	FieldPrefLabel  Field = "pref_label"
	FieldAltLabels  Field = "alt_labels"
	FieldDefinition Field = "definition"
	// FieldKind places the value in the concept's kind, so it is part of the
	// canonical id (TAX:IE:1234567-T).
	FieldKind Field = "kind"
	// FieldDomain places the value in the concept's domain.
	FieldDomain Field = "domain"
)

// Case is one probe.
type Case struct {
	Name      string
	Kind      string // the personal-data kind, as pii.Kind spells it
	Technique string // how the value is disguised; "plain" for the new kinds
	Text      string // the value as the attacker writes it
	Field     Field  // where the probe puts it in a captured concept
	// Needle is the value reduced to lower-case ASCII letters and digits
	// (see Reduce): text that still holds it after Reduce leaked the value.
	Needle string
}

// Disguise techniques.
const (
	ZeroWidth  = "zero-width characters"
	Dots       = "dots inside the number"
	Dashes     = "dashes inside the number"
	Slashes    = "slashes inside the number"
	Spaces     = "odd spaces inside the number"
	ArabicIndi = "Arabic-Indic digits"
	OtherDigit = "other non-ASCII digits"
	Cyrillic   = "Cyrillic or Greek look-alikes"
	InID       = "inside the concept id"
	Compat     = "compatibility forms and escapes"
	Plain      = "plain"

	Words       = "written in words"
	Encoded     = "entities or percent-encoding"
	TagChars    = "Unicode tag characters"
	Defanged    = "defanged"
	Spelled     = "letter by letter"
	LookAlikeNo = "O and l for 0 and 1"
	Squeezed    = "lower case, hyphens or no spaces"
	Joined      = "joined with underscores"
	Script      = "name in another script"
)

const (
	zwsp = "\u200b" // zero-width space
	zwj  = "\u200d" // zero-width joiner
	shy  = "\u00ad" // soft hyphen
	wj   = "\u2060" // word joiner
	nbsp = "\u00a0"
	thin = "\u2009"
)

// Disguised are the kinds the guard already knew, each hidden.
var Disguised = []Case{
	// E-mail: jane.roe@example.com
	{"email zero-width", "EMAIL", ZeroWidth, "jane" + zwsp + ".roe@exa" + zwj + "mple.com", FieldAltLabels, "janeroeexamplecom"},
	{"email soft hyphens", "EMAIL", ZeroWidth, "jane" + shy + ".roe@example" + shy + ".com", FieldDefinition, "janeroeexamplecom"},
	{"email full-width at", "EMAIL", Compat, "jane.roe＠example.com", FieldPrefLabel, "janeroeexamplecom"},
	{"email Cyrillic letters", "EMAIL", Cyrillic, "jаne.rоe@exаmple.com", FieldAltLabels, "janeroeexamplecom"},
	{"email Greek omicron", "EMAIL", Cyrillic, "jane.rοe@example.cοm", FieldDefinition, "janeroeexamplecom"},
	{"email (at)", "EMAIL", Compat, "jane.roe (at) example.com", FieldDefinition, "janeroeexamplecom"},
	{"email [at] [dot]", "EMAIL", Compat, "jane.roe [at] example [dot] com", FieldAltLabels, "janeroeexamplecom"},
	{"email URL-encoded", "EMAIL", Compat, "jane.roe%40example.com", FieldPrefLabel, "janeroeexamplecom"},
	{"email HTML entity", "EMAIL", Compat, "jane.roe&#64;example.com", FieldDefinition, "janeroeexamplecom"},
	{"email in id", "EMAIL", InID, "jane.roe@example.com", FieldDomain, "janeroeexamplecom"},

	// Phone: 087 123 4567
	{"phone zero-width", "PHONE", ZeroWidth, "087" + zwsp + "123" + zwsp + "4567", FieldAltLabels, "0871234567"},
	{"phone dots", "PHONE", Dots, "087.123.45.67", FieldDefinition, "0871234567"},
	{"phone dashes", "PHONE", Dashes, "087-12-34-567", FieldPrefLabel, "0871234567"},
	{"phone slashes", "PHONE", Slashes, "087/123/4567", FieldAltLabels, "0871234567"},
	{"phone odd spaces", "PHONE", Spaces, "087" + nbsp + "123" + thin + "4567", FieldDefinition, "0871234567"},
	{"phone Arabic-Indic", "PHONE", ArabicIndi, "٠٨٧ ١٢٣ ٤٥٦٧", FieldPrefLabel, "0871234567"},
	{"phone Devanagari", "PHONE", OtherDigit, "०८७ १२३ ४५६७", FieldAltLabels, "0871234567"},
	{"phone full-width", "PHONE", Compat, "０８７ １２３ ４５６７", FieldDefinition, "0871234567"},
	{"phone in id", "PHONE", InID, "CALLBACK_087_123_4567", FieldKind, "0871234567"},
	{"phone en dashes", "PHONE", Dashes, "+353–87–123–4567", FieldDefinition, "353871234567"},
	{"phone word joiners", "PHONE", ZeroWidth, "0" + wj + "87 1" + wj + "23 45" + wj + "67", FieldPrefLabel, "0871234567"},

	// IBAN: IE29 AIBK 9311 5212 3456 78
	{"IBAN zero-width", "IBAN", ZeroWidth, "IE29" + zwsp + "AIBK" + zwsp + "9311" + zwsp + "5212" + zwsp + "3456" + zwsp + "78", FieldDefinition, "ie29aibk93115212345678"},
	{"IBAN dots", "IBAN", Dots, "IE29.AIBK.9311.5212.3456.78", FieldAltLabels, "ie29aibk93115212345678"},
	{"IBAN dashes", "IBAN", Dashes, "IE29-AIBK-9311-5212-3456-78", FieldPrefLabel, "ie29aibk93115212345678"},
	{"IBAN slashes", "IBAN", Slashes, "IE29/AIBK/9311/5212/3456/78", FieldDefinition, "ie29aibk93115212345678"},
	{"IBAN odd spaces", "IBAN", Spaces, "IE29" + nbsp + "AIBK" + thin + "9311  5212 3456 78", FieldAltLabels, "ie29aibk93115212345678"},
	{"IBAN Arabic-Indic", "IBAN", ArabicIndi, "IE٢٩AIBK٩٣١١٥٢١٢٣٤٥٦٧٨", FieldPrefLabel, "ie29aibk93115212345678"},
	{"IBAN Bengali digits", "IBAN", OtherDigit, "IE২৯AIBK৯৩১১৫২১২৩৪৫৬৭৮", FieldDefinition, "ie29aibk93115212345678"},
	{"IBAN Cyrillic letters", "IBAN", Cyrillic, "ІЕ29 АІВК 9311 5212 3456 78", FieldAltLabels, "ie29aibk93115212345678"},
	{"IBAN in id", "IBAN", InID, "IE29_AIBK_9311_5212_3456_78", FieldKind, "ie29aibk93115212345678"},
	{"IBAN lower case dotted", "IBAN", Dots, "ie29.aibk.9311.5212.3456.78", FieldDefinition, "ie29aibk93115212345678"},
	{"IBAN full-width", "IBAN", Compat, "ＩＥ２９ＡＩＢＫ９３１１５２１２３４５６７８", FieldPrefLabel, "ie29aibk93115212345678"},

	// Card: 4111 1111 1111 1111
	{"card zero-width", "CARD", ZeroWidth, "4111" + zwsp + "1111" + zwsp + "1111" + zwsp + "1111", FieldPrefLabel, "4111111111111111"},
	{"card dots", "CARD", Dots, "4111.1111.1111.1111", FieldDefinition, "4111111111111111"},
	{"card dashes", "CARD", Dashes, "4111--1111--1111--1111", FieldAltLabels, "4111111111111111"},
	{"card slashes", "CARD", Slashes, "4111/1111/1111/1111", FieldPrefLabel, "4111111111111111"},
	{"card odd spaces", "CARD", Spaces, "4111" + nbsp + "1111" + nbsp + "1111" + nbsp + "1111", FieldDefinition, "4111111111111111"},
	{"card Arabic-Indic", "CARD", ArabicIndi, "٤١١١ ١١١١ ١١١١ ١١١١", FieldAltLabels, "4111111111111111"},
	{"card Extended Arabic-Indic", "CARD", OtherDigit, "۴۱۱۱۱۱۱۱۱۱۱۱۱۱۱۱", FieldPrefLabel, "4111111111111111"},
	{"card soft hyphens", "CARD", ZeroWidth, "4111" + shy + "1111" + shy + "1111" + shy + "1111", FieldDefinition, "4111111111111111"},
	{"card in id", "CARD", InID, "CARD_4111_1111_1111_1111", FieldKind, "4111111111111111"},
	{"card em dashes", "CARD", Dashes, "4111—1111—1111—1111", FieldAltLabels, "4111111111111111"},

	// PPSN: 1234567T
	{"PPSN zero-width", "PPSN", ZeroWidth, "1234" + zwsp + "567" + zwsp + "T", FieldAltLabels, "1234567t"},
	{"PPSN dots", "PPSN", Dots, "123.4567.T", FieldPrefLabel, "1234567t"},
	{"PPSN dashes", "PPSN", Dashes, "1234567-T", FieldDefinition, "1234567t"},
	{"PPSN slashes", "PPSN", Slashes, "1234567/T", FieldAltLabels, "1234567t"},
	{"PPSN odd spaces", "PPSN", Spaces, "123 45 67" + nbsp + "T", FieldPrefLabel, "1234567t"},
	{"PPSN Arabic-Indic", "PPSN", ArabicIndi, "١٢٣٤٥٦٧T", FieldDefinition, "1234567t"},
	{"PPSN Devanagari", "PPSN", OtherDigit, "१२३४५६७T", FieldAltLabels, "1234567t"},
	{"PPSN Cyrillic check letter", "PPSN", Cyrillic, "1234567Т", FieldPrefLabel, "1234567t"},
	{"PPSN in id", "PPSN", InID, "1234567-T", FieldKind, "1234567t"},
	{"PPSN full-width", "PPSN", Compat, "１２３４５６７Ｔ", FieldDefinition, "1234567t"},
	{"PPSN two letters dashed", "PPSN", Dashes, "1234567-T-W", FieldAltLabels, "1234567tw"},

	// NINO: AB 12 34 56 C
	{"NINO zero-width", "NINO", ZeroWidth, "AB" + zwsp + "123456" + zwsp + "C", FieldDefinition, "ab123456c"},
	{"NINO dots", "NINO", Dots, "AB.12.34.56.C", FieldAltLabels, "ab123456c"},
	{"NINO dashes", "NINO", Dashes, "AB-12-34-56-C", FieldPrefLabel, "ab123456c"},
	{"NINO slashes", "NINO", Slashes, "AB/12/34/56/C", FieldDefinition, "ab123456c"},
	{"NINO odd spaces", "NINO", Spaces, "AB" + nbsp + "12" + thin + "34" + nbsp + "56" + nbsp + "C", FieldAltLabels, "ab123456c"},
	{"NINO Arabic-Indic", "NINO", ArabicIndi, "AB١٢٣٤٥٦C", FieldPrefLabel, "ab123456c"},
	{"NINO Extended Arabic-Indic", "NINO", OtherDigit, "AB۱۲۳۴۵۶C", FieldDefinition, "ab123456c"},
	{"NINO Cyrillic letters", "NINO", Cyrillic, "АВ 12 34 56 С", FieldAltLabels, "ab123456c"},
	{"NINO in id", "NINO", InID, "NI_AB123456C", FieldKind, "ab123456c"},
	{"NINO full-width", "NINO", Compat, "ＡＢ１２３４５６Ｃ", FieldPrefLabel, "ab123456c"},
}

// NewKinds are the kinds the guard did not look for, one probe each.
var NewKinds = []Case{
	{"person's name", "PERSON_NAME", Plain, "Mary Murphy", FieldPrefLabel, "marymurphy"},
	{"IP address", "IP_ADDRESS", Plain, "192.168.1.10", FieldAltLabels, "192168110"},
	{"date of birth", "DATE_OF_BIRTH", Plain, "date of birth 14/03/1985", FieldDefinition, "14031985"},
	{"Eircode", "EIRCODE", Plain, "D02 X285", FieldAltLabels, "d02x285"},
	{"UK postcode", "UK_POSTCODE", Plain, "SW1A 1AA", FieldPrefLabel, "sw1a1aa"},
	{"vehicle registration", "VEHICLE_REG", Plain, "191-D-12345", FieldDefinition, "191d12345"},
	{"passport number", "PASSPORT", Plain, "PA1234567", FieldAltLabels, "pa1234567"},
}

// Rewritten are values written so no digit group or '@' shows: in
// words, encoded, hidden in tag characters, letter by letter, defanged,
// or in another script. Each needle is the text as written, reduced.
var Rewritten = []Case{
	rewritten("email at dot words", "EMAIL", Words, "jane at example dot com", FieldDefinition),
	rewritten("email AT DOT capitals", "EMAIL", Words, "jane AT example DOT ie", FieldAltLabels),
	rewritten("email braces", "EMAIL", Words, "jane.roe {at} example {dot} com", FieldDefinition),
	rewritten("email French", "EMAIL", Words, "jane.roe arobase example point fr", FieldDefinition),
	rewritten("email Spanish", "EMAIL", Words, "jane.roe arroba example punto es", FieldPrefLabel),
	rewritten("email Italian", "EMAIL", Words, "jane.roe chiocciola example punto it", FieldAltLabels),
	rewritten("email German", "EMAIL", Words, "jane.roe Klammeraffe example punkt de", FieldDefinition),
	rewritten("email spaces around at", "EMAIL", Compat, "jane.roe @ example.com", FieldDefinition),
	rewritten("email double percent-encoding", "EMAIL", Encoded, "jane.roe%2540example.com", FieldPrefLabel),
	rewritten("email entity encoded twice", "EMAIL", Encoded, "jane.roe&amp;commat;example&amp;period;com", FieldDefinition),
	rewritten("email hex entities", "EMAIL", Encoded, "jane.roe&#x40;example&#x2e;com", FieldAltLabels),
	rewritten("email in tag characters", "EMAIL", TagChars, tags("jane.roe@example.com"), FieldDefinition),
	rewritten("email Armenian and Greek look-alikes", "EMAIL", Cyrillic, "jane.rօe@εxample.cօm", FieldAltLabels),
	rewritten("email dotless i and Latin alpha", "EMAIL", Cyrillic, "mɑry.murphy@gmɑıl.com", FieldDefinition),

	rewritten("phone in words", "PHONE", Words, "oh eight seven one two three four five six seven", FieldDefinition),
	rewritten("phone in words with commas", "PHONE", Words, "zero eight seven, one two three, four five six seven", FieldAltLabels),
	rewritten("phone words and digits", "PHONE", Words, "087 one two three four five six seven", FieldDefinition),
	rewritten("phone double digit word", "PHONE", Words, "oh eight seven double one two three four five six", FieldPrefLabel),
	rewritten("phone capitalised words", "PHONE", Words, "Zero Eight Seven One Two Three Four Five Six Seven", FieldDefinition),
	rewritten("phone O and l", "PHONE", LookAlikeNo, "O87 l23 4567", FieldDefinition),
	rewritten("phone O and I dashed", "PHONE", LookAlikeNo, "O87-I23-4567", FieldAltLabels),
	rewritten("phone in tag characters", "PHONE", TagChars, tags("087 123 4567"), FieldDefinition),

	rewritten("IBAN double spaces", "IBAN", Spaces, "IE29  AIBK  9311  5212  3456  78", FieldDefinition),
	rewritten("IBAN percent-encoded spaces", "IBAN", Encoded, "IE29%20AIBK%209311%205212%203456%2078", FieldAltLabels),
	rewritten("IBAN entity spaces", "IBAN", Encoded, "IE29&#32;AIBK&#x20;9311&nbsp;5212 3456 78", FieldDefinition),

	rewritten("card in words", "CARD", Words, "four one one one one one one one one one one one one one one one", FieldDefinition),

	rewritten("PPSN in words", "PPSN", Words, "one two three four five six seven T", FieldDefinition),

	rewritten("NINO letter by letter", "NINO", Spelled, "A B 1 2 3 4 5 6 C", FieldDefinition),
	rewritten("NINO letter by letter dashed", "NINO", Spelled, "A-B-1-2-3-4-5-6-C", FieldAltLabels),
	rewritten("NINO digits in words", "NINO", Words, "AB one two three four five six C", FieldDefinition),

	rewritten("passport letter by letter", "PASSPORT", Spelled, "P A 1 2 3 4 5 6 7", FieldDefinition),
	rewritten("passport digits in words", "PASSPORT", Words, "PA one two three four five six seven", FieldAltLabels),

	rewritten("IP square brackets", "IP_ADDRESS", Defanged, "81[.]17[.]4[.]2", FieldDefinition),
	rewritten("IP round brackets", "IP_ADDRESS", Defanged, "81(.)17(.)4(.)2", FieldAltLabels),
	rewritten("IP in a defanged URL", "IP_ADDRESS", Defanged, "hxxp://81[.]17[.]4[.]2/login", FieldDefinition),
	rewritten("IP dot words", "IP_ADDRESS", Words, "81 dot 17 dot 4 dot 2", FieldDefinition),

	rewritten("date of birth in words", "DATE_OF_BIRTH", Words, "born on the fifth of March nineteen eighty-two", FieldDefinition),
	rewritten("date of birth ordinal", "DATE_OF_BIRTH", Words, "5th March 1982", FieldAltLabels),
	rewritten("date of birth month first in words", "DATE_OF_BIRTH", Words, "born March fifth, nineteen eighty-two", FieldDefinition),
	rewritten("date of birth the of", "DATE_OF_BIRTH", Words, "date of birth: the 5th of March 1982", FieldDefinition),

	rewritten("address number in words", "ADDRESS", Words, "twelve Main Street", FieldDefinition),
	rewritten("address compound number", "ADDRESS", Words, "forty-two Oak Road", FieldAltLabels),
	rewritten("address flat in words", "ADDRESS", Words, "Flat twelve", FieldDefinition),

	rewritten("Eircode lower case hyphen", "EIRCODE", Squeezed, "d02-x285", FieldDefinition),
	rewritten("Eircode letter by letter", "EIRCODE", Spelled, "d 0 2 x 2 8 5", FieldAltLabels),
	rewritten("Eircode hyphen", "EIRCODE", Squeezed, "D02-X285", FieldPrefLabel),
	rewritten("Eircode percent-encoded space", "EIRCODE", Encoded, "D02%20X285", FieldDefinition),

	rewritten("postcode lower case hyphen", "UK_POSTCODE", Squeezed, "sw1a-1aa", FieldDefinition),
	rewritten("postcode lower case", "UK_POSTCODE", Squeezed, "sw1a1aa", FieldAltLabels),
	rewritten("postcode lower case spaced", "UK_POSTCODE", Squeezed, "sw1a 1aa", FieldDefinition),
	rewritten("postcode lower case underscore", "UK_POSTCODE", Joined, "m1_1ae", FieldPrefLabel),

	rewritten("name Cyrillic one word", "PERSON_NAME", Script, "my name is Иван", FieldDefinition),
	rewritten("name Greek cue", "PERSON_NAME", Script, "με λένε Γιώργο Παπαδόπουλο", FieldDefinition),
	rewritten("name Russian cue", "PERSON_NAME", Script, "меня зовут Иван Петров", FieldAltLabels),
	rewritten("name Chinese", "PERSON_NAME", Script, "我叫王伟", FieldDefinition),
	rewritten("name Japanese", "PERSON_NAME", Script, "私の名前は田中太郎です", FieldDefinition),
}

// rewritten is a probe whose needle is its text reduced.
func rewritten(name, kind, technique, text string, field Field) Case {
	return Case{name, kind, technique, text, field, Reduce(text)}
}

// tags writes s in Unicode tag characters (U+E0000 plus each ASCII
// character), which show nothing on screen but a model reads.
func tags(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(0xE0000 + r)
	}
	return b.String()
}

// All is Disguised, NewKinds, then Rewritten.
func All() []Case {
	return append(append(append([]Case{}, Disguised...), NewKinds...), Rewritten...)
}

// Legitimate are regulatory texts (labels, aliases and definitions) the
// guard must accept and redaction must leave alone.
var Legitimate = []string{
	"Value-Added Tax",
	"Section 481 film relief",
	"USC 2024 rates",
	"Directive 2006/112/EC",
	"13.5% reduced rate",
	"Cáin Bhreisluacha",
	"Cáin Ioncaim",
	"Árachas Sóisialach Pá-Choibhneasa",
	"Capital Gains Tax",
	"Jobseeker's Benefit",
	"Carer's Support Grant",
	"Taxes Consolidation Act 1997, s.81",
	"Section 472A",
	"PRSI Class S",
	"€1,270 annual exemption",
	"Income Tax 2024/25 bands",
	"Regulation (EU) 2016/679",
	"S.I. No. 123 of 2013",
	"State Pension (Contributory)",
	"Benefit-in-Kind",
	"Help to Buy",
	"Vehicle Registration Tax",
	"Universal Social Charge",
	"Council Directive 2006/112/EC on the common system of value added tax",
	"The standard rate is 23% and the reduced rates are 13.5% and 9%.",
	"Self-employed people with income of €5,000 or more pay 4.1% PRSI.",
	"Finance Act 2024, section 604A, effective from 1 January 2025.",
	"A claim must be made within 4 years of the end of the tax year; the 12-month rule applies.",
	"The Minister for Social Protection sets the rate each Budget.",
	"HMRC charges interest from the 1st day after the deadline.",
	"Citizens Information and Intreo Centres in Dublin and Cork explain the rules.",
	"Paid to people aged 66 or over who have 520 paid contributions.",
	"Look at the rate that applies at 23% on the date of supply.",
	"Forty per cent of the gain is charged at the rate of nine per cent.",
	"The higher rate is twenty-three per cent and the lower one is thirteen point five per cent.",
	"Tax is charged at the standard rate; see the guidance at revenue.ie for details.",
	"Apply at your local office or online at gov.ie, then wait at least two weeks.",
	"Relief is given at one third of the cost over three, four or five years.",
	"Claims made at or after one o'clock on the first day of the month count from that day.",
	"Section four hundred and eighty-one relief is at thirty-two per cent.",
	"The point at issue is the dot on the form, and the rate point is nine point five.",
	"Shares issued on or after 6 April 1984 qualify for the relief.",
	"Look at line 2 of form P60 and the note at the foot of page 4.",
	"Pay PRSI at Class A1 and at the rate of four point one per cent.",
	"One, two or three children: the rate for each is set at forty euro a week.",
	"Contributions paid at age sixty-six or over count; see Chapter 12 at section 108.",
	"Tá eolas ar fáil ag www.revenue.ie agus ag gov.ie.",
	"Voir le point 4 et le taux à 20 % sur impots.gouv.fr.",
}

// Reduce is how the probes look for a leaked value in output text: tag
// characters read as the ASCII they stand for, NFKC, decimal digits of
// any script as ASCII digits, Cyrillic and Greek look-alikes as Latin
// letters, lower case, and everything but letters and digits dropped. It
// is deliberately independent of the package under test.
func Reduce(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKC.String(untag(s)) {
		if d, ok := digitValue(r); ok {
			b.WriteByte('0' + d)
			continue
		}
		if l, ok := lookAlike[r]; ok {
			r = l
		}
		r = unicode.ToLower(r)
		if unicode.IsLetter(r) || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// untag reads each tag character (U+E0020 to U+E007E) as its ASCII twin.
func untag(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 0xE0020 && r <= 0xE007E {
			return r - 0xE0000
		}
		return r
	}, s)
}

// Leaked reports whether the reduced text holds the case's needle.
func (c Case) Leaked(text string) bool { return strings.Contains(Reduce(text), c.Needle) }

func digitValue(r rune) (byte, bool) {
	if !unicode.IsDigit(r) {
		return 0, false
	}
	n := 0
	for unicode.IsDigit(r-rune(n)-1) && n < 40 {
		n++
	}
	return byte(n % 10), true
}

var lookAlike = map[rune]rune{
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'і': 'i', 'ј': 'j', 'ѕ': 's',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T',
	'Х': 'X', 'І': 'I', 'Ј': 'J', 'Ѕ': 'S',
	'ο': 'o', 'α': 'a', 'ε': 'e', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O',
	'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
}

// Concept is a clean captured concept (as the model sends it) with the
// probe placed in its field: labels hold the value alone, a definition
// holds it in a sentence.
func (c Case) Concept() concept.Concept {
	out := concept.Concept{Domain: "TAX", Kind: "VAT", Jurisdiction: "IE", PrefLabel: "Value-Added Tax",
		AltLabels: []string{"VAT"}, Definition: "A tax on the supply of goods and services."}
	switch c.Field {
	case FieldPrefLabel:
		out.PrefLabel = c.Text
	case FieldAltLabels:
		out.AltLabels = append(out.AltLabels, c.Text)
	case FieldDefinition:
		out.Definition = "For details contact " + c.Text + " today."
	case FieldKind:
		out.Kind = c.Text
	case FieldDomain:
		out.Domain = c.Text
	}
	return out
}
