package seeddata

import "testing"

// The UK income tax and Class 1 NI change points (families/uk_income_tax.json
// and uk_ni.json): each date gets the value HMRC's tables give for it.
func TestUKFamiliesOnChangeDates(t *testing.T) {
	ds, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	const (
		it = "TAX:UK:INCOME_TAX:"
		ni = "TAX:UK:NATIONAL_INSURANCE:"
	)
	cases := []struct {
		series, date string
		want         float64
	}{
		{it + "THRESHOLD:PERSONAL_ALLOWANCE", "2021-04-05", 12500},
		{it + "THRESHOLD:PERSONAL_ALLOWANCE", "2021-04-06", 12570},
		{it + "THRESHOLD:PERSONAL_ALLOWANCE", "2028-04-06", 12570},
		{it + "THRESHOLD:PERSONAL_ALLOWANCE", "2030-04-05", 12570},
		{it + "THRESHOLD:ADDITIONAL_RATE_THRESHOLD", "2023-04-05", 150000},
		{it + "THRESHOLD:ADDITIONAL_RATE_THRESHOLD", "2023-04-06", 125140},
		{"TAX:UK:SCOTTISH_INCOME_TAX:RATE:TOP", "2023-04-05", 46},
		{"TAX:UK:SCOTTISH_INCOME_TAX:RATE:TOP", "2023-04-06", 47},
		{"TAX:UK:SCOTTISH_INCOME_TAX:RATE:TOP", "2024-04-06", 48},
		{"TAX:UK:SCOTTISH_INCOME_TAX:RATE:HIGHER", "2023-04-06", 42},
		{"TAX:UK:SCOTTISH_INCOME_TAX:THRESHOLD:HIGHER_LIMIT", "2024-04-06", 62430},
		{"TAX:UK:SCOTTISH_INCOME_TAX:THRESHOLD:STARTER_LIMIT", "2025-04-06", 2827},
		{ni + "RATE:CLASS1_EMPLOYEE_MAIN", "2022-04-05", 12},
		{ni + "RATE:CLASS1_EMPLOYEE_MAIN", "2022-04-06", 13.25},
		{ni + "RATE:CLASS1_EMPLOYEE_MAIN", "2022-11-05", 13.25},
		{ni + "RATE:CLASS1_EMPLOYEE_MAIN", "2022-11-06", 12},
		{ni + "RATE:CLASS1_EMPLOYEE_MAIN", "2024-01-06", 10},
		{ni + "RATE:CLASS1_EMPLOYEE_MAIN", "2024-04-06", 8},
		{ni + "RATE:CLASS1_EMPLOYER", "2022-11-06", 13.8},
		{ni + "RATE:CLASS1_EMPLOYER", "2025-04-06", 15},
		{ni + "THRESHOLD:PRIMARY_THRESHOLD_MONTHLY", "2022-07-05", 823},
		{ni + "THRESHOLD:PRIMARY_THRESHOLD_MONTHLY", "2022-07-06", 1048},
		{ni + "THRESHOLD:SECONDARY_THRESHOLD_ANNUAL", "2025-04-05", 9100},
		{ni + "THRESHOLD:SECONDARY_THRESHOLD_ANNUAL", "2025-04-06", 5000},
		{ni + "THRESHOLD:UPPER_EARNINGS_LIMIT_WEEKLY", "2026-04-06", 967},
	}
	for _, c := range cases {
		got, n := valueOn(ds, c.series, c.date)
		if n != 1 || got != c.want {
			t.Errorf("%s on %s: %v (%d values valid), want %v", c.series, c.date, got, n, c.want)
		}
	}
}
