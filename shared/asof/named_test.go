package asof_test

import (
	"testing"
	"time"

	"regintel/shared/asof"
)

// Dates people use, read against the fixed clock of 26 November 2026.
func TestFromQuestionReadsTheDatesPeopleUse(t *testing.T) {
	for _, tc := range []struct {
		question      string
		jurisdictions []string
		date, end     string
		phrase        string
	}{
		// quarters stand for the 15th of their middle month
		{"VAT charged in Q4 2024", nil, "2024-11-15", "", "in Q4 2024"},
		{"2023 Q1 USC", nil, "2023-02-15", "", "2023 Q1"},
		{"the third quarter of 2025", nil, "2025-08-15", "", "third quarter of 2025"},
		{"during the last quarter of 2022", nil, "2022-11-15", "", "last quarter of 2022"},
		{"this quarter: q4 2026", nil, "2026-11-26", "", "q4 2026"},
		// named days
		{"What was the carbon levy on Christmas Day 2023?", nil, "2023-12-25", "", "on Christmas Day 2023"},
		{"minimum wage at Christmas 2021", nil, "2021-12-25", "", "Christmas 2021"},
		{"on St Patrick's Day 2025", nil, "2025-03-17", "", "on St Patrick's Day 2025"},
		{"Saint Patrick’s Day 2022 wages", nil, "2022-03-17", "", "Saint Patrick’s Day 2022"},
		{"New Year's Eve 2024", nil, "2024-12-31", "", "New Year's Eve 2024"},
		{"on Budget day 2024", nil, "2024-10-01", "", "on Budget day 2024"},
		{"since budget day 2025", nil, "2025-10-07", "", "since budget day 2025"},
		{"rates last Christmas", nil, "2025-12-25", "", "last Christmas"},
		{"rates next St Patrick's Day", nil, "2027-03-17", "", "next St Patrick's Day"},
		// counted back from today
		{"What was the USC two years ago?", nil, "2024-11-26", "", "two years ago"},
		{"VAT 3 months ago", nil, "2026-08-26", "", "3 months ago"},
		{"a week ago", nil, "2026-11-19", "", "a week ago"},
		{"the rate this time last year", nil, "2025-11-26", "", "this time last year"},
		// tax years by jurisdiction: Ireland's is the calendar year (a year
		// stands for 1 July), the UK's runs from 6 April
		{"income tax bands last tax year", []string{"IE"}, "2025-07-01", "", "last tax year"},
		{"income tax bands last tax year", nil, "2025-07-01", "", "last tax year"},
		{"personal allowance last tax year", []string{"UK"}, "2025-04-06", "", "last tax year"},
		{"personal allowance this tax year", []string{"uk"}, "2026-11-26", "", "this tax year"},
		{"personal allowance next tax year", []string{"GB"}, "2027-04-06", "", "next tax year"},
		{"both countries, last tax year", []string{"UK", "IE"}, "2025-07-01", "", "last tax year"},
		// ranges give both ends
		{"How did the VAT rate change between 2023 and 2025?", nil, "2023-07-01", "2025-07-01", "between 2023 and 2025"},
		{"USC from Q1 2024 to Q3 2024", nil, "2024-02-15", "2024-08-15", "from Q1 2024 to Q3 2024"},
		{"NMW 2021 - 2024", nil, "2021-07-01", "2024-07-01", "2021 - 2024"},
		{"from March 2020 until this year", nil, "2020-03-15", "2026-11-26", "from March 2020 until this year"},
	} {
		t.Run(tc.question, func(t *testing.T) {
			got, ok := asof.FromQuestionIn(tc.question, today, tc.jurisdictions)
			if !ok {
				t.Fatalf("no date found, want %s", tc.date)
			}
			end := ""
			if !got.End.IsZero() {
				end = got.End.Format(asof.DateLayout)
			}
			if got.String() != tc.date || end != tc.end || got.Phrase != tc.phrase {
				t.Fatalf("got %s to %q, %q; want %s to %q, %q", got, end, got.Phrase, tc.date, tc.end, tc.phrase)
			}
		})
	}
}

// Phrases that look like dates but are not read as one, or not as a range.
func TestFromQuestionLeavesUnknownAndNonRanges(t *testing.T) {
	if got, ok := asof.FromQuestion("on Budget day 2023", today); !ok || got.String() != "2023-07-01" || got.Phrase != "2023" {
		t.Errorf("Budget day of a year with no sourced date: got %s %q, want the year alone", got, got.Phrase)
	}
	for q, want := range map[string]string{
		"compare 2023 and 2025":         "2023-07-01", // "and" without "between" is two dates, not a range
		"from 2025 to 2023":             "2025-01-01", // backwards is not a range
		"Q5 2024 does not exist, 2024":  "2024-07-01",
		"thirty years ago, in 2010 say": "2010-07-01",
	} {
		got, ok := asof.FromQuestion(q, today)
		if !ok || got.String() != want || !got.End.IsZero() {
			t.Errorf("%q: got %s (end %v), want %s and no end", q, got, got.End, want)
		}
	}
	if d, ok := asof.BudgetDay(2025); !ok || d != time.Date(2025, 10, 7, 0, 0, 0, 0, time.UTC) {
		t.Errorf("BudgetDay(2025) = %v, %v", d, ok)
	}
}
