package asof

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// More shapes of period: quarters, named days, days counted back from
// today, tax years counted from today.
func init() {
	rules = append(rules,
		rule{regexp.MustCompile(`(?i)\bQ([1-4])\s?[-/]?\s?(\d{4})\b`), func(s string, l []int, _ env) (period, bool) {
			return quarterPeriod(atoi(s, l, 2), atoi(s, l, 1))
		}, false},
		rule{regexp.MustCompile(`(?i)\b(\d{4})\s?[-/]?\s?Q([1-4])\b`), func(s string, l []int, _ env) (period, bool) {
			return quarterPeriod(atoi(s, l, 1), atoi(s, l, 2))
		}, false},
		rule{regexp.MustCompile(`(?i)\b(first|second|third|fourth|final|last|1st|2nd|3rd|4th)\s+quarter\s+(?:of\s+)?(\d{4})\b`), func(s string, l []int, _ env) (period, bool) {
			return quarterPeriod(atoi(s, l, 2), quarterNumber(group(s, l, 1)))
		}, false},
		rule{regexp.MustCompile(`(?i)\b(` + namedDayPattern + `)(?:\s+of|,)?\s+(\d{4})\b`), func(s string, l []int, _ env) (period, bool) {
			return namedDay(group(s, l, 1), atoi(s, l, 2))
		}, false},
		rule{regexp.MustCompile(`(?i)\b(last|this|next)\s+(` + namedDayPattern + `)\b`), func(s string, l []int, e env) (period, bool) {
			return relativeNamedDay(strings.ToLower(group(s, l, 1)), group(s, l, 2), e.today)
		}, true},
		rule{regexp.MustCompile(`(?i)\b(a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d{1,2})\s+(year|month|week|day)s?\s+ago\b`), func(s string, l []int, e env) (period, bool) {
			return agoPeriod(group(s, l, 1), strings.ToLower(group(s, l, 2)), e.today)
		}, true},
		rule{regexp.MustCompile(`(?i)\bthis\s+time\s+last\s+year\b`), func(_ string, _ []int, e env) (period, bool) {
			d := e.today.AddDate(-1, 0, 0)
			return period{start: d, end: d, pick: d}, true
		}, true},
		rule{regexp.MustCompile(`(?i)\b(last|previous|this|current|next|coming)\s+tax\s+year\b`), func(s string, l []int, e env) (period, bool) {
			offsets := map[string]int{"last": -1, "previous": -1, "this": 0, "current": 0, "next": 1, "coming": 1}
			return relativeTaxYear(offsets[strings.ToLower(group(s, l, 1))], e)
		}, true},
	)
}

// quarterPeriod is a calendar quarter; it stands for the 15th of its
// middle month, as a month stands for its 15th.
func quarterPeriod(year, quarter int) (period, bool) {
	if !validYear(year) || quarter < 1 || quarter > 4 {
		return period{}, false
	}
	first := time.Date(year, time.Month(3*quarter-2), 1, 0, 0, 0, 0, time.UTC)
	return period{start: first, end: first.AddDate(0, 3, -1), pick: first.AddDate(0, 1, 14)}, true
}

func quarterNumber(word string) int {
	switch strings.ToLower(word) {
	case "first", "1st":
		return 1
	case "second", "2nd":
		return 2
	case "third", "3rd":
		return 3
	}
	return 4 // fourth, 4th, final, last
}

// namedDayPattern names the days people date things by; the apostrophe
// may be straight or curly, or left out.
const namedDayPattern = `christmas\s+eve|christmas(?:\s+day)?|new\s+year['’]?s\s+eve|new\s+year['’]?s(?:\s+day)?|` +
	`(?:st\.?|saint)\s+patrick['’]?s\s+day|paddy['’]?s\s+day|budget\s+day`

// namedDay is the named day of year. Budget day is the day the Minister
// for Finance presented a budget in that year, where a source for the date
// was found (BudgetDay); another year's is not read.
func namedDay(name string, year int) (period, bool) {
	if !validYear(year) {
		return period{}, false
	}
	var d time.Time
	switch n := strings.ToLower(strings.Join(strings.Fields(name), " ")); {
	case strings.HasPrefix(n, "budget"):
		var ok bool
		if d, ok = BudgetDay(year); !ok {
			return period{}, false
		}
	case n == "christmas eve":
		d = time.Date(year, time.December, 24, 0, 0, 0, 0, time.UTC)
	case strings.HasPrefix(n, "christmas"):
		d = time.Date(year, time.December, 25, 0, 0, 0, 0, time.UTC)
	case strings.HasSuffix(n, "eve"):
		d = time.Date(year, time.December, 31, 0, 0, 0, 0, time.UTC)
	case strings.HasPrefix(n, "new year"):
		d = time.Date(year, time.January, 1, 0, 0, 0, 0, time.UTC)
	default: // St Patrick's Day
		d = time.Date(year, time.March, 17, 0, 0, 0, 0, time.UTC)
	}
	return period{start: d, end: d, pick: d}, true
}

// relativeNamedDay: "last Christmas" is the latest one before today,
// "next Christmas" the first after it, "this Christmas" this year's.
func relativeNamedDay(which, name string, today time.Time) (period, bool) {
	year := today.Year()
	p, ok := namedDay(name, year)
	switch which {
	case "last":
		for y := year; ok && !p.start.Before(today); {
			y--
			p, ok = namedDay(name, y)
		}
	case "next":
		for y := year; ok && !p.start.After(today); {
			y++
			p, ok = namedDay(name, y)
		}
	}
	return p, ok
}

var countWords = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
	"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}

// agoPeriod is the day n units before today.
func agoPeriod(count, unit string, today time.Time) (period, bool) {
	n, ok := countWords[strings.ToLower(count)]
	if !ok {
		n, _ = strconv.Atoi(count)
	}
	var d time.Time
	switch unit {
	case "year":
		d = today.AddDate(-n, 0, 0)
	case "month":
		d = today.AddDate(0, -n, 0)
	case "week":
		d = today.AddDate(0, 0, -7*n)
	default:
		d = today.AddDate(0, 0, -n)
	}
	if !validYear(d.Year()) {
		return period{}, false
	}
	return period{start: d, end: d, pick: d}, true
}

// relativeTaxYear is the tax year offset from the one containing today:
// the UK's (6 April to 5 April, standing for its first day) or Ireland's,
// which is the calendar year.
func relativeTaxYear(offset int, e env) (period, bool) {
	if !e.ukTaxYear {
		return yearPeriod(e.today.Year() + offset)
	}
	first := e.today.Year()
	if e.today.Before(time.Date(first, time.April, 6, 0, 0, 0, 0, time.UTC)) {
		first--
	}
	first += offset
	return taxYearPeriod(first, strconv.Itoa(first+1))
}

// ukTaxYear: the UK's tax year applies where the conversation is about
// the UK (or Great Britain) and not Ireland.
func ukTaxYear(jurisdictions []string) bool {
	uk, ie := false, false
	for _, j := range jurisdictions {
		switch strings.ToUpper(strings.TrimSpace(j)) {
		case "UK", "GB":
			uk = true
		case "IE":
			ie = true
		}
	}
	return uk && !ie
}

// rangeWords join the two ends of a range; "and" only after "between".
var rangeWords = []string{"and", "to", "until", "till", "through", "-", "–"}

// rangeFrom reads the question's first date as the start of a range when
// a second date follows it joined by a range word: "between 2023 and
// 2025", "from Q1 2024 to Q3 2024", "2022 to 2024". Each end stands for
// the date it would name alone.
func rangeFrom(question string, found []match, today time.Time) (AsOf, bool) {
	first := found[0]
	i := slices.IndexFunc(found, func(m match) bool { return m.start >= first.end })
	if i < 0 {
		return AsOf{}, false
	}
	second := found[i]
	between := strings.ToLower(strings.TrimSpace(question[first.end:second.start]))
	if !slices.Contains(rangeWords, between) {
		return AsOf{}, false
	}
	lead := strings.ToLower(strings.TrimRight(question[:first.start], " "))
	start := first.start
	for _, w := range []string{"between", "from"} {
		if strings.HasSuffix(lead, w) && wordBoundaryBefore(lead, len(lead)-len(w)) {
			start = len(lead) - len(w)
		}
	}
	if between == "and" && start == first.start {
		return AsOf{}, false
	}
	from, to := named(first.period, today), named(second.period, today)
	if to.Before(from) {
		return AsOf{}, false
	}
	return AsOf{Date: from, End: to, Source: SourceQuestion, Phrase: question[start:second.end]}, true
}
