package enrich

import (
	"strings"
	"time"

	"regintel/shared/graph"
)

// statedDate returns date (an ISO date the model read as a value's
// effective date) when quote, copied from the page, states that date in a
// form official pages use; else "". A date the page does not state is
// never recorded: the value is then undated.
func statedDate(quote, date string) string {
	d, err := time.Parse(graph.DateLayout, strings.TrimSpace(date))
	if err != nil {
		return ""
	}
	text := strings.ToLower(strings.Join(strings.Fields(quote), " "))
	for _, form := range dateForms(d) {
		if strings.Contains(text, strings.ToLower(form)) {
			return d.Format(graph.DateLayout)
		}
	}
	return ""
}

// dateForms are the ways Irish, UK and EU official pages write a date.
func dateForms(d time.Time) []string {
	day := d.Format("2")
	suffix := "th"
	switch d.Day() {
	case 1, 21, 31:
		suffix = "st"
	case 2, 22:
		suffix = "nd"
	case 3, 23:
		suffix = "rd"
	}
	month, year := d.Format("January"), d.Format("2006")
	return []string{
		day + " " + month + " " + year,
		d.Format("02") + " " + month + " " + year,
		day + suffix + " " + month + " " + year,
		day + suffix + " of " + month + " " + year,
		month + " " + day + ", " + year,
		d.Format(graph.DateLayout),
		d.Format("02/01/2006"),
		d.Format("2/1/2006"),
		d.Format("02.01.2006"),
	}
}
