package pii

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Detectors for the personal data that identifies a person without a
// checksum: passport numbers, dates of birth, vehicle registrations,
// Eircodes, UK postcodes, street addresses and names. Each is tied to a
// shape no regulatory text uses, or to a cue word ("born", "passport",
// "Mr"), so rates, years and section numbers are not flagged.

func matchesOf(kind Kind, re *regexp.Regexp, text string, group int) []Match {
	var out []Match
	for _, loc := range re.FindAllStringSubmatchIndex(text, -1) {
		if loc[2*group] < 0 {
			continue
		}
		out = append(out, Match{kind, loc[2*group], loc[2*group+1]})
	}
	return out
}

var (
	// An Irish passport number: two capitals and seven digits (a space
	// between when it was written in words or letter by letter).
	passportIEPattern = regexp.MustCompile(`\b[A-Z]{2} ?\d{7}\b`)
	// Any number after the word passport: six to nine letters and digits,
	// at least one a digit (a UK passport number is nine digits).
	passportCuePattern = regexp.MustCompile(`(?i)\bpassport(?:\s*(?:no\.?|number|num|#))?\s*:?\s*([A-Z0-9]*\d[A-Z0-9]*)\b`)
)

func findPassports(text string) []Match {
	out := matchesOf(KindPassport, passportIEPattern, text, 0)
	for _, m := range matchesOf(KindPassport, passportCuePattern, text, 1) {
		if n := m.End - m.Start; n >= 6 && n <= 9 {
			out = append(out, m)
		}
	}
	return out
}

const monthNames = `jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?`

var (
	// d/m/y, d.m.y or d-m-y with a four-digit year, and ISO y-m-d.
	numericDatePattern = regexp.MustCompile(`\b(\d{1,2})[./-](\d{1,2})[./-](\d{4})\b`)
	isoDatePattern     = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`)
	// A birth cue, then a date in any common form within a few words.
	birthCuePattern = regexp.MustCompile(`(?i)\b(?:born(?:\s+on)?|d\.?o\.?b\.?|date\s+of\s+birth|birth\s*date|birthday)\s*(?:is|was|:|-)?\s*` +
		`(?:the\s+)?(\d{1,2}(?:st|nd|rd|th)?(?:\s+of)?[\s./-]*(?:` + monthNames + `|\d{1,2})[\s./,-]*\d{2,4}|(?:` + monthNames + `)\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\d{4}-\d{2}-\d{2})`)
)

// adultYear is the latest birth year the numeric-date rule treats as a
// date of birth: a full numeric date sixteen or more years back is far
// more often someone's birthday than a deadline. Later dates are flagged
// only after a birth cue.
func adultYear() int { return time.Now().Year() - 16 }

// A date with its month in words, day first or month first ("5th March
// 1982", "the 5th of March 1982", "March 5, 1982").
var (
	dayMonthYearPattern = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(` + monthNames + `)\.?,?\s+(\d{4})\b`)
	monthDayYearPattern = regexp.MustCompile(`(?i)\b(` + monthNames + `)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`)
)

// datedWords are the words before a date that make it a date of law or
// of a deadline ("on or after 6 April 1984"), not of birth.
var datedWords = setOf("from", "since", "after", "before", "until", "till", "dated", "commencing", "effective",
	"ending", "beginning", "between", "and", "to", "by", "of", "on")

func findDatesOfBirth(text string) []Match {
	out := matchesOf(KindDOB, birthCuePattern, text, 1)
	for _, loc := range dayMonthYearPattern.FindAllStringSubmatchIndex(text, -1) {
		d, m, y := atoi(text[loc[2]:loc[3]]), monthNumber(text[loc[4]:loc[5]]), atoi(text[loc[6]:loc[7]])
		if adultBirthDate(d, m, y) && !datedWords[wordBefore(text, loc[0])] {
			out = append(out, Match{KindDOB, loc[0], loc[1]})
		}
	}
	for _, loc := range monthDayYearPattern.FindAllStringSubmatchIndex(text, -1) {
		m, d, y := monthNumber(text[loc[2]:loc[3]]), atoi(text[loc[4]:loc[5]]), atoi(text[loc[6]:loc[7]])
		if adultBirthDate(d, m, y) && !datedWords[wordBefore(text, loc[0])] {
			out = append(out, Match{KindDOB, loc[0], loc[1]})
		}
	}
	for _, loc := range numericDatePattern.FindAllStringSubmatchIndex(text, -1) {
		d, m, y := atoi(text[loc[2]:loc[3]]), atoi(text[loc[4]:loc[5]]), atoi(text[loc[6]:loc[7]])
		if (validDate(d, m, y) || validDate(m, d, y)) && y >= 1900 && y <= adultYear() && !datedWords[wordBefore(text, loc[0])] && !inIdentifier(text, loc[0]) {
			out = append(out, Match{KindDOB, loc[0], loc[1]})
		}
	}
	for _, loc := range isoDatePattern.FindAllStringSubmatchIndex(text, -1) {
		y, m, d := atoi(text[loc[2]:loc[3]]), atoi(text[loc[4]:loc[5]]), atoi(text[loc[6]:loc[7]])
		if validDate(d, m, y) && y >= 1900 && y <= adultYear() && !datedWords[wordBefore(text, loc[0])] && !inIdentifier(text, loc[0]) {
			out = append(out, Match{KindDOB, loc[0], loc[1]})
		}
	}
	return out
}

// inIdentifier: the date at i ends an identifier ("TAX:IE:VAT:RATE:2003-01-01"),
// as a node id holds the date a rate took effect.
func inIdentifier(text string, i int) bool { return i > 0 && text[i-1] == ':' }

func adultBirthDate(d, m, y int) bool { return validDate(d, m, y) && y >= 1900 && y <= adultYear() }

// monthNumber is the month a name or its abbreviation names (1 to 12).
func monthNumber(name string) int {
	if len(name) < 3 {
		return 0
	}
	return strings.Index("janfebmaraprmayjunjulaugsepoctnovdec", strings.ToLower(name[:3]))/3 + 1
}

// wordBefore is the word before i (skipping "the"), in lower case.
func wordBefore(text string, i int) string {
	for range 2 {
		for i > 0 && text[i-1] == ' ' {
			i--
		}
		j := i
		for j > 0 && isLetter(text[j-1]) {
			j--
		}
		w := strings.ToLower(text[j:i])
		if w != "the" {
			return w
		}
		i = j
	}
	return ""
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func validDate(d, m, y int) bool {
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	return d <= time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

var (
	// Irish registrations: a two- or three-digit year (and half-year)
	// code, a county or city index mark, and a serial ("191-D-12345",
	// "08 KY 123").
	vehicleIEPattern = regexp.MustCompile(`\b\d{2}[12]?[ -]?(?:CE|CN|CW|DL|KE|KK|KY|LD|LH|LK|LM|LS|MH|MN|MO|OY|RN|SO|TN|TS|WD|WH|WW|WX|C|D|G|L|T|W)[ -]?\d{1,6}\b`)
	// UK registrations since 2001: two letters, a two-digit age identifier
	// and three letters ("AB12 CDE").
	vehicleUKPattern = regexp.MustCompile(`\b[A-HJ-PR-Y][A-HJ-PR-Y]\d{2} ?[A-HJ-PR-Z]{3}\b`)
)

func findVehicleRegs(text string) []Match {
	return append(matchesOf(KindVehicleReg, vehicleIEPattern, text, 0), matchesOf(KindVehicleReg, vehicleUKPattern, text, 0)...)
}

// An Eircode: a routing key (a letter and two digits, or D6W) and a
// four-character unique identifier from the Eircode alphabet with at
// least one letter and one digit ("D02 X285"; "P60 2024" is a form and a
// year).
var eircodePattern = regexp.MustCompile(`(?i)\b(?:[ACDEFHKNPRTVWXY]\d{2}|D6W)[ -]?([0-9ACDEFHKNPRTVWXY]{4})\b`)

func findEircodes(text string) []Match {
	var out []Match
	for _, loc := range eircodePattern.FindAllStringSubmatchIndex(text, -1) {
		id := strings.ToUpper(text[loc[2]:loc[3]])
		if strings.ContainsAny(id, "0123456789") && strings.ContainsAny(id, "ACDEFHKNPRTVWXY") {
			out = append(out, Match{KindEircode, loc[0], loc[1]})
		}
	}
	return out
}

// A UK postcode: outward code (area letters, district digit
// and an optional letter or digit), then inward code (a digit and two
// letters), as in "SW1A 1AA" and "M1 1AE".
var postcodePattern = regexp.MustCompile(`(?i)\b(?:GIR[ -]?0AA|[A-PR-UWYZ][A-HK-Y]?\d[A-Z\d]?[ -]?\d([ABD-HJLNP-UW-Z]{2}))\b`)

// findPostcodes takes a postcode in capitals or wholly in lower case, but
// not a lower-case one whose inward code reads as an ordinal ("a1 2nd").
func findPostcodes(text string) []Match {
	var out []Match
	for _, loc := range postcodePattern.FindAllStringSubmatchIndex(text, -1) {
		s := text[loc[0]:loc[1]]
		upperCase, lowerCase := strings.ToUpper(s) == s, strings.ToLower(s) == s
		if !upperCase && !lowerCase {
			continue
		}
		if lowerCase && loc[2] >= 0 {
			switch text[loc[2]:loc[3]] {
			case "st", "nd", "rd", "th":
				continue
			}
		}
		out = append(out, Match{KindPostcode, loc[0], loc[1]})
	}
	return out
}

// A street address: a house number, one to three capitalised words and a
// street type; or a flat, apartment or unit number.
var addressPattern = regexp.MustCompile(`\b\d{1,4}[A-Za-z]?,?\s+(?:\p{Lu}[\p{L}'’-]+\s+){1,3}(?:Street|St|Road|Rd|Avenue|Ave|Lane|Drive|Close|Park|Terrace|Crescent|Place|Square|Way|Court|Grove|Gardens|Row|Quay|Hill|Green|View|Heights|Walk|Mews|Rise|Manor|Lawn|Lawns)\b\.?|(?i:\b(?:apartment|apt\.?|flat|unit)\s+\d+[A-Za-z]?\b)`)

func findAddresses(text string) []Match { return matchesOf(KindAddress, addressPattern, text, 0) }
