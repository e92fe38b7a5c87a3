package calc

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	"regintel/shared/asof"
)

// Earliest and latest years a date may name: outside them no graph has
// values, and a typo ("0224") should be a 400, not an empty read.
const (
	minYear = 1990
	maxYear = 2100
)

var (
	ieTaxYear = regexp.MustCompile(`^(\d{4})$`)
	ukTaxYear = regexp.MustCompile(`^(\d{4})/(\d{2})$`)
)

// ResolveDate returns the ISO date a request is computed for: asOf as
// given; a tax year's first day ("2024" in Ireland: 1 January 2024;
// "2024/25" in the UK: 6 April 2024; calculators of annual figures span the
// whole year from it); neither, today.
func ResolveDate(req Request, jurisdiction string, today time.Time) (string, error) {
	switch {
	case req.AsOf != "" && req.TaxYear != "":
		return "", &FieldError{Field: "taxYear", Message: "give asOf or taxYear, not both"}
	case req.AsOf != "":
		d, err := time.Parse(asof.DateLayout, req.AsOf)
		if err != nil {
			return "", &FieldError{Field: "asOf", Message: "must be an ISO date (YYYY-MM-DD)"}
		}
		if d.Year() < minYear || d.Year() > maxYear {
			return "", &FieldError{Field: "asOf", Message: fmt.Sprintf("must be between %d and %d", minYear, maxYear)}
		}
		return req.AsOf, nil
	case req.TaxYear != "":
		year, err := taxYearStart(req.TaxYear, jurisdiction)
		if err != nil {
			return "", err
		}
		if jurisdiction == "UK" {
			return fmt.Sprintf("%04d-04-06", year), nil
		}
		return fmt.Sprintf("%04d-01-01", year), nil
	}
	return today.UTC().Format(asof.DateLayout), nil
}

func taxYearStart(s, jurisdiction string) (int, error) {
	var year int
	switch jurisdiction {
	case "UK":
		m := ukTaxYear.FindStringSubmatch(s)
		if m == nil {
			return 0, &FieldError{Field: "taxYear", Message: `a UK tax year is written "2024/25"`}
		}
		year, _ = strconv.Atoi(m[1])
		if next, _ := strconv.Atoi(m[2]); next != (year+1)%100 {
			return 0, &FieldError{Field: "taxYear", Message: fmt.Sprintf("%q: the second year must follow the first", s)}
		}
	default:
		m := ieTaxYear.FindStringSubmatch(s)
		if m == nil {
			return 0, &FieldError{Field: "taxYear", Message: `an Irish tax year is a calendar year, written "2024"`}
		}
		year, _ = strconv.Atoi(m[1])
	}
	if year < minYear || year > maxYear {
		return 0, &FieldError{Field: "taxYear", Message: fmt.Sprintf("must be between %d and %d", minYear, maxYear)}
	}
	return year, nil
}

// TaxYearBounds returns the first and last ISO dates of the tax year that
// contains date: the calendar year in Ireland, 6 April to 5 April in the UK.
func TaxYearBounds(date, jurisdiction string) (string, string, error) {
	d, err := time.Parse(asof.DateLayout, date)
	if err != nil {
		return "", "", err
	}
	if jurisdiction != "UK" {
		return fmt.Sprintf("%04d-01-01", d.Year()), fmt.Sprintf("%04d-12-31", d.Year()), nil
	}
	start := d.Year()
	if d.Before(time.Date(d.Year(), time.April, 6, 0, 0, 0, 0, time.UTC)) {
		start--
	}
	return fmt.Sprintf("%04d-04-06", start), fmt.Sprintf("%04d-04-05", start+1), nil
}

// timeZero stands for "no today" where a date must be given.
var timeZero time.Time

// AddDays returns the ISO date n days after date.
func AddDays(date string, n int) string {
	d, err := time.Parse(asof.DateLayout, date)
	if err != nil {
		return ""
	}
	return d.AddDate(0, 0, n).Format(asof.DateLayout)
}
