package asof_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"regintel/shared/asof"
)

// today is a fixed clock: Thursday 26 November 2026, mid-afternoon.
var today = time.Date(2026, time.November, 26, 15, 4, 5, 0, time.UTC)

func TestFromQuestion(t *testing.T) {
	for _, tc := range []struct {
		question, date, phrase string
	}{
		{"What was the USC middle rate in 2023?", "2023-07-01", "in 2023"},
		{"USC bands 2024", "2024-07-01", "2024"},
		{"What is the VAT rate in 2026?", "2026-11-26", "in 2026"},
		{"PRSI rate in 2027", "2027-07-01", "in 2027"},
		{"VAT on restaurant meals on 15 March 2024", "2024-03-15", "on 15 March 2024"},
		{"VAT on restaurant meals on 1st of September 2023?", "2023-09-01", "on 1st of September 2023"},
		{"minimum wage on March 15, 2024", "2024-03-15", "on March 15, 2024"},
		{"minimum wage on 2024-03-15", "2024-03-15", "on 2024-03-15"},
		{"minimum wage on 15/03/2024", "2024-03-15", "on 15/03/2024"},
		{"minimum wage on 05/04/2024", "2024-04-05", "on 05/04/2024"}, // day first: 5 April
		{"NI rate in March 2024", "2024-03-15", "in March 2024"},
		{"NI rate in Nov 2026", "2026-11-26", "in Nov 2026"},
		{"PRSI before October 2024?", "2024-09-30", "before October 2024"},
		{"PRSI prior to 1 October 2025", "2025-09-30", "prior to 1 October 2025"},
		{"hospitality VAT before 2024", "2023-12-31", "before 2024"},
		{"PRSI after September 2024", "2024-10-01", "after September 2024"},
		{"CGT rate since 2023", "2023-01-01", "since 2023"},
		{"personal allowance for 2024/25", "2024-04-06", "for 2024/25"},
		{"personal allowance 2023-24", "2023-04-06", "2023-24"},
		{"personal allowance in 2022/2023", "2022-04-06", "in 2022/2023"},
		{"personal allowance 2026/27", "2026-11-26", "2026/27"},
		{"the 1999/00 tax year", "1999-04-06", "1999/00"},
		{"USC last year", "2025-07-01", "last year"},
		{"USC next year", "2027-07-01", "next year"},
		{"USC this year", "2026-11-26", "this year"},
		{"What does Budget 2026 do to the USC?", "2026-01-01", "Budget 2026"},
		{"after Budget 2025", "2025-01-02", "after Budget 2025"},
		{"compare 2023 with 2024", "2023-07-01", "2023"},
		{"VAT in 2023, 2024 and 2025", "2023-07-01", "in 2023"},
		// A day that does not exist leaves the wider period it names.
		{"VAT on 29 February 2023", "2023-02-15", "February 2023"},
		{"VAT on 31/04/2024", "2024-07-01", "2024"},
	} {
		t.Run(tc.question, func(t *testing.T) {
			got, ok := asof.FromQuestion(tc.question, today)
			if !ok {
				t.Fatalf("no date found, want %s", tc.date)
			}
			if got.String() != tc.date || got.Phrase != tc.phrase || got.Source != asof.SourceQuestion {
				t.Fatalf("got %s %q (%s), want %s %q", got, got.Phrase, got.Source, tc.date, tc.phrase)
			}
		})
	}
}

func TestFromQuestionFindsNoDate(t *testing.T) {
	for _, q := range []string{
		"What is the standard VAT rate?",
		"Is €2024 taxable?",
		"I earn 2024 euro a month",
		"I paid £1999 for a car",
		"a bill of 2,024.50",
		"interest of 2024.5",
		"the year 3000",
		"rates from 1850",
		"in 2024% of cases",
		"code 12345",
	} {
		t.Run(q, func(t *testing.T) {
			if got, ok := asof.FromQuestion(q, today); ok {
				t.Fatalf("found %s from %q", got, got.Phrase)
			}
		})
	}
}

func TestChoosePrefersRequestThenQuestionThenToday(t *testing.T) {
	requested := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	if got := asof.Choose(requested, "USC in 2023", today); got.String() != "2024-03-01" || got.Source != asof.SourceRequest || got.Phrase != "" {
		t.Fatalf("request: %+v", got)
	}
	if got := asof.Choose(time.Time{}, "USC in 2023", today); got.String() != "2023-07-01" || got.Source != asof.SourceQuestion {
		t.Fatalf("question: %+v", got)
	}
	late := time.Date(2026, 11, 26, 23, 30, 0, 0, time.FixedZone("UTC-2", -2*3600)) // already 27 November in UTC
	if got := asof.Choose(time.Time{}, "USC rate", late); got.String() != "2026-11-27" || got.Source != asof.SourceToday {
		t.Fatalf("today: %+v", got)
	}
}

func TestParseDate(t *testing.T) {
	if d, err := asof.ParseDate(" 2024-02-29 "); err != nil || d.Format(asof.DateLayout) != "2024-02-29" {
		t.Fatalf("got %v %v", d, err)
	}
	for _, bad := range []string{"", "2023-02-29", "2024-3-1", "15/03/2024", "2024-03-15T00:00:00Z", "1989-12-31", "2101-01-01"} {
		if _, err := asof.ParseDate(bad); !errors.Is(err, asof.ErrBadDate) {
			t.Errorf("%q: err %v, want ErrBadDate", bad, err)
		}
	}
}

// Whatever the question, a date found lies between MinYear and MaxYear
// (give or take the day a modifier moves it) and its phrase is the
// question's own words.
func FuzzFromQuestion(f *testing.F) {
	for _, seed := range []string{"USC in 2023", "before 1 October 2024", "2024/25", "Budget 2026", "15/03/2024", "€2024", "next year", "in may 2024,"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, q string) {
		got, ok := asof.FromQuestion(q, today)
		if !ok {
			return
		}
		if y := got.Date.Year(); y < asof.MinYear-1 || y > asof.MaxYear+1 {
			t.Fatalf("year %d from %q", y, q)
		}
		if got.Phrase == "" || !strings.Contains(q, got.Phrase) {
			t.Fatalf("phrase %q is not in %q", got.Phrase, q)
		}
		if got.Date.Hour() != 0 || got.Date.Location() != time.UTC {
			t.Fatalf("date %v is not a UTC day", got.Date)
		}
	})
}
