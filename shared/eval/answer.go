package eval

import (
	"regexp"
	"strconv"
	"strings"
)

// numberPattern finds numbers as answers write them: 23%, €44,000,
// £12.71, 4.5.
var numberPattern = regexp.MustCompile(`[€£$]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[€£$]?\d+(?:\.\d+)?`)

// datePart is a number that is part of a date, not a value: a year, or a
// day next to a month's name.
var datePart = regexp.MustCompile(`(?i)^\s*(?:st|nd|rd|th)?\s*(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)`)

var monthBefore = regexp.MustCompile(`(?i)(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s*$`)

// answerNumbers are the values an answer states, without the numbers of
// its dates (years, days of a month) and tax years ("2024/25").
func answerNumbers(answer string) []float64 {
	var out []float64
	for _, loc := range numberPattern.FindAllStringIndex(answer, -1) {
		raw := answer[loc[0]:loc[1]]
		money := strings.ContainsAny(raw, "€£$")
		digits := strings.NewReplacer("€", "", "£", "", "$", "", ",", "").Replace(raw)
		v, err := strconv.ParseFloat(digits, 64)
		if err != nil {
			continue
		}
		before, after := answer[:loc[0]], answer[loc[1]:]
		percent := strings.HasPrefix(strings.TrimSpace(after), "%")
		year := !money && !percent && !strings.Contains(digits, ".") && v >= 1990 && v <= 2100
		day := !money && !percent && v >= 1 && v <= 31 && (datePart.MatchString(after) || monthBefore.MatchString(before))
		taxYearEnd := strings.HasSuffix(before, "/") || strings.HasSuffix(before, "–") || strings.HasSuffix(before, "-")
		if year || day || (taxYearEnd && len(digits) == 2) {
			continue
		}
		out = append(out, v)
	}
	return out
}

// numbersCited reports whether every number of the answer is the value of
// one of its citations.
func numbersCited(answer string, cited []Citation) bool {
	for _, n := range answerNumbers(answer) {
		found := false
		for _, c := range cited {
			if c.Value != nil && sameNumber(*c.Value, n) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
