package asof

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// period is a span of days a question names, and the day that stands for
// it when it is named alone.
type period struct {
	start, end, pick time.Time
}

// How a named period becomes one date. A date names itself. A month stands
// for its 15th. A year stands for 1 July: an annual value (Irish budget
// measures from 1 January, UK tax-year measures from April) is in force
// then, and a change late in the year (PRSI's October steps, hospitality
// VAT from 1 September 2023) is reported as the neighbouring value rather
// than replacing the one that held for most of the year. A tax year
// ("2024/25", UK: 6 April to 5 April) stands for its first day, when its
// rates and allowances start. "Budget 2026" stands for 1 January 2026, when
// an Irish budget's measures apply. A period that contains today stands for
// today. "before" takes the day before the period, "after" the day after
// it, "from" and "since" its first day.

// match is one period found in a question, with its byte range.
type match struct {
	start, end int
	period     period
}

// rule finds one shape of period.
type rule struct {
	re    *regexp.Regexp
	build func(text string, loc []int, e env) (period, bool)
	// wordsOnly: the shape holds no four-digit year, so it is the one rule
	// to try on a question without one.
	wordsOnly bool
}

// env is what reading a period may depend on beyond the text: the day it
// is asked, and whose tax year "last tax year" means.
type env struct {
	today     time.Time
	ukTaxYear bool
}

const monthNames = `january|february|march|april|may|june|july|august|september|october|november|december|` +
	`jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec`

var rules = []rule{
	{regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`), func(s string, l []int, _ env) (period, bool) {
		return dayPeriod(atoi(s, l, 1), atoi(s, l, 2), atoi(s, l, 3))
	}, false},
	{regexp.MustCompile(`\b(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})\b`), func(s string, l []int, _ env) (period, bool) {
		return dayPeriod(atoi(s, l, 3), atoi(s, l, 2), atoi(s, l, 1)) // day first, as written in Ireland and the UK
	}, false},
	{regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(` + monthNames + `)\.?,?\s+(\d{4})\b`), func(s string, l []int, _ env) (period, bool) {
		return dayPeriod(atoi(s, l, 3), monthNumber(group(s, l, 2)), atoi(s, l, 1))
	}, false},
	{regexp.MustCompile(`(?i)\b(` + monthNames + `)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`), func(s string, l []int, _ env) (period, bool) {
		return dayPeriod(atoi(s, l, 3), monthNumber(group(s, l, 1)), atoi(s, l, 2))
	}, false},
	{regexp.MustCompile(`(?i)\b(` + monthNames + `)\.?,?\s+(\d{4})\b`), func(s string, l []int, _ env) (period, bool) {
		return monthPeriod(atoi(s, l, 2), monthNumber(group(s, l, 1)))
	}, false},
	{regexp.MustCompile(`\b(\d{4})\s?[/-]\s?(\d{2}|\d{4})\b`), func(s string, l []int, _ env) (period, bool) {
		return taxYearPeriod(atoi(s, l, 1), group(s, l, 2))
	}, false},
	{regexp.MustCompile(`(?i)\bbudget\s+(\d{4})\b`), func(s string, l []int, _ env) (period, bool) {
		return budgetPeriod(atoi(s, l, 1))
	}, false},
	{regexp.MustCompile(`(?i)\b(last|previous|this|next|coming)\s+year\b`), func(s string, l []int, e env) (period, bool) {
		offsets := map[string]int{"last": -1, "previous": -1, "this": 0, "next": 1, "coming": 1}
		return yearPeriod(e.today.UTC().Year() + offsets[strings.ToLower(group(s, l, 1))])
	}, true},
	{regexp.MustCompile(`\b(\d{4})\b`), func(s string, l []int, _ env) (period, bool) {
		if !standsAlone(s, l[0], l[1]) {
			return period{}, false
		}
		return yearPeriod(atoi(s, l, 1))
	}, false},
}

// FromQuestion returns the first date the question names, if any, reading
// "last tax year" as the Irish (calendar) one. Where two shapes start at
// the same word, the longer wins ("15 March 2024" over "March 2024").
func FromQuestion(question string, today time.Time) (AsOf, bool) {
	return FromQuestionIn(question, today, nil)
}

// FromQuestionIn is FromQuestion for a conversation in jurisdictions: with
// the UK among them and Ireland not, a tax year is the UK's (6 April to
// 5 April). A range ("between 2023 and 2025", "from March to June 2024")
// gives its first end as the date and its last as End.
func FromQuestionIn(question string, today time.Time, jurisdictions []string) (AsOf, bool) {
	e := env{today: day(today), ukTaxYear: ukTaxYear(jurisdictions)}
	var found []match
	hasYear := holdsFourDigits(question)
	for _, r := range rules {
		if !hasYear && !r.wordsOnly {
			continue
		}
		for _, loc := range r.re.FindAllStringSubmatchIndex(question, -1) {
			if p, ok := r.build(question, loc, e); ok {
				found = append(found, match{start: loc[0], end: loc[1], period: p})
			}
		}
	}
	if len(found) == 0 {
		return AsOf{}, false
	}
	longestFirst := func(a, b match) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	}
	slices.SortFunc(found, longestFirst)
	first := found[0]
	if r, ok := rangeFrom(question, found, e.today); ok {
		return r, true
	}
	start, date := applyModifier(question, first, e.today)
	return AsOf{Date: date, Source: SourceQuestion, Phrase: question[start:first.end]}, true
}

// holdsFourDigits: four digits stand in a row somewhere in text, as every
// shape but a relative year ("last year") needs.
func holdsFourDigits(text string) bool {
	run := 0
	for i := 0; i < len(text); i++ {
		if text[i] < '0' || text[i] > '9' {
			run = 0
			continue
		}
		if run++; run == 4 {
			return true
		}
	}
	return false
}

// modifiers are the words that may precede a period, lower-case; the
// ones in shifts move the date.
var modifiers = []string{"prior to", "as of", "as at", "before", "after", "from", "since", "during", "in", "on", "for"}

// applyModifier reads the word before m and returns where the phrase
// starts and the date it names.
func applyModifier(question string, m match, today time.Time) (int, time.Time) {
	before := strings.ToLower(question[:m.start])
	trimmed := strings.TrimRight(before, " ")
	p := m.period
	for _, word := range modifiers {
		if !strings.HasSuffix(trimmed, word) || !wordBoundaryBefore(trimmed, len(trimmed)-len(word)) {
			continue
		}
		start := len(trimmed) - len(word)
		switch word {
		case "before", "prior to":
			return start, p.start.AddDate(0, 0, -1)
		case "after":
			return start, p.end.AddDate(0, 0, 1)
		case "from", "since", "as of", "as at":
			return start, p.start
		}
		return start, named(p, today)
	}
	return m.start, named(p, today)
}

// named is the date a period stands for when named alone.
func named(p period, today time.Time) time.Time {
	if !today.Before(p.start) && !today.After(p.end) {
		return today
	}
	return p.pick
}

func wordBoundaryBefore(s string, i int) bool {
	return i == 0 || !isWordByte(s[i-1])
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// moneyWords after a number make it an amount, not a year.
var moneyWords = []string{"euro", "euros", "eur", "gbp", "pound", "pounds", "per", "%", "percent"}

// standsAlone reports whether the four digits at s[start:end] read as a
// year: not part of an amount (€2024, 2,024, 2024.50, 2024 euro) or a
// longer number.
func standsAlone(s string, start, end int) bool {
	if start > 0 {
		prev := s[start-1]
		if strings.ContainsRune(".,", rune(prev)) || strings.HasSuffix(s[:start], "€") || strings.HasSuffix(s[:start], "£") || prev == '$' {
			return false
		}
	}
	rest := s[end:]
	if len(rest) >= 2 && (rest[0] == '.' || rest[0] == ',') && rest[1] >= '0' && rest[1] <= '9' {
		return false
	}
	next := strings.ToLower(strings.TrimLeft(rest, " "))
	for _, w := range moneyWords {
		if strings.HasPrefix(next, w) && (len(next) == len(w) || !isWordByte(next[len(w)]) || w == "%") {
			return false
		}
	}
	return true
}

func dayPeriod(year, month, dayOfMonth int) (period, bool) {
	if !validYear(year) || month < 1 || month > 12 || dayOfMonth < 1 {
		return period{}, false
	}
	d := time.Date(year, time.Month(month), dayOfMonth, 0, 0, 0, 0, time.UTC)
	if d.Day() != dayOfMonth {
		return period{}, false // 31 April, 29 February in a common year
	}
	return period{start: d, end: d, pick: d}, true
}

func monthPeriod(year, month int) (period, bool) {
	if !validYear(year) || month < 1 {
		return period{}, false
	}
	first := time.Date(year, time.Month(month), 1, 0, 0, 0, 0, time.UTC)
	return period{start: first, end: first.AddDate(0, 1, -1), pick: first.AddDate(0, 0, 14)}, true
}

func yearPeriod(year int) (period, bool) {
	if !validYear(year) {
		return period{}, false
	}
	return period{
		start: time.Date(year, time.January, 1, 0, 0, 0, 0, time.UTC),
		end:   time.Date(year, time.December, 31, 0, 0, 0, 0, time.UTC),
		pick:  time.Date(year, time.July, 1, 0, 0, 0, 0, time.UTC),
	}, true
}

// taxYearPeriod reads "2024/25" or "2024-2025": the second year follows
// the first, else it is not a tax year.
func taxYearPeriod(first int, second string) (period, bool) {
	n, _ := strconv.Atoi(second)
	if len(second) == 2 {
		n += first / 100 * 100
		if n < first {
			n += 100
		}
	}
	if !validYear(first) || n != first+1 {
		return period{}, false
	}
	start := time.Date(first, time.April, 6, 0, 0, 0, 0, time.UTC)
	return period{start: start, end: time.Date(n, time.April, 5, 0, 0, 0, 0, time.UTC), pick: start}, true
}

func budgetPeriod(year int) (period, bool) {
	if !validYear(year) {
		return period{}, false
	}
	d := time.Date(year, time.January, 1, 0, 0, 0, 0, time.UTC)
	return period{start: d, end: d, pick: d}, true
}

func validYear(y int) bool { return y >= MinYear && y <= MaxYear }

func monthNumber(name string) int {
	name = strings.ToLower(name)
	for i, full := range []string{"january", "february", "march", "april", "may", "june", "july",
		"august", "september", "october", "november", "december"} {
		if strings.HasPrefix(full, name) {
			return i + 1
		}
	}
	return 0
}

func group(s string, loc []int, n int) string { return s[loc[2*n]:loc[2*n+1]] }

func atoi(s string, loc []int, n int) int {
	v, _ := strconv.Atoi(group(s, loc, n))
	return v
}
