package seeddata

import "testing"

// valueOn returns the value (percent or amount) of the series' node valid
// on date, and how many nodes were valid then.
func valueOn(ds Dataset, series, date string) (float64, int) {
	var value float64
	found := 0
	for _, n := range ds.Nodes {
		if n.Series != series || (n.ValidFrom != "" && n.ValidFrom > date) || (n.ValidTo != "" && n.ValidTo < date) {
			continue
		}
		found++
		if v, ok := n.Properties["percent"].(float64); ok {
			value = v
		} else {
			value, _ = n.Properties["amount"].(float64)
		}
	}
	return value, found
}

// The change points the dataset exists for: each date gets the value its
// source gives for it, and exactly one.
func TestValuesOnChangeDates(t *testing.T) {
	ds, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	const (
		hospitality = "TAX:IE:VAT:RATE:HOSPITALITY_RESTAURANTS"
		prsi        = "SOCIAL_WELFARE:IE:PRSI:RATE:CLASS_A_EMPLOYEE"
		ni          = "TAX:UK:NATIONAL_INSURANCE:RATE:CLASS1_EMPLOYEE_MAIN"
		nlw         = "EMPLOYMENT:UK:NATIONAL_LIVING_WAGE:THRESHOLD:HOURLY"
		srcop       = "TAX:IE:INCOME_TAX:THRESHOLD:STANDARD_RATE_CUT_OFF_SINGLE"
		usc2        = "TAX:IE:USC:RATE:BAND2"
	)
	cases := []struct {
		series, date string
		want         float64
	}{
		{hospitality, "2023-08-31", 9},
		{hospitality, "2023-09-01", 13.5},
		{prsi, "2024-09-30", 4},
		{prsi, "2024-10-01", 4.1},
		{prsi, "2025-09-30", 4.1},
		{prsi, "2025-10-01", 4.2},
		{prsi, "2026-10-01", 4.35},
		{ni, "2024-01-05", 12},
		{ni, "2024-01-06", 10},
		{ni, "2024-04-06", 8},
		{nlw, "2024-03-31", 10.42},
		{nlw, "2024-04-01", 11.44},
		{srcop, "2023-06-30", 40000},
		{srcop, "2025-06-30", 44000},
		{usc2, "2024-12-31", 2},
		{"TAX:IE:INCOME_TAX:RELIEF:EMPLOYEE_CREDIT", "2023-12-31", 1775},
		{"TAX:IE:INCOME_TAX:RELIEF:PERSONAL_CREDIT_SINGLE", "2024-06-30", 1875},
		{"TAX:IE:VAT:RATE:ENERGY", "2025-04-30", 9},
		{"TAX:IE:INCOME_TAX:RELIEF:EMPLOYEE_CREDIT", "2025-01-01", 2000},
	}
	for _, c := range cases {
		got, n := valueOn(ds, c.series, c.date)
		if n != 1 || got != c.want {
			t.Errorf("%s on %s: %v (%d values valid), want %v", c.series, c.date, got, n, c.want)
		}
	}
}

// The families added from Revenue's CAT tables, the carbon tax, the 2023
// minimum wage and the upper VRT bands: each change date gets its value.
func TestAddedFamiliesOnChangeDates(t *testing.T) {
	ds, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		series, date string
		want         float64
	}{
		{"TAX:IE:CAT:THRESHOLD:GROUP_A", "2024-10-01", 335000},
		{"TAX:IE:CAT:THRESHOLD:GROUP_A", "2024-10-02", 400000},
		{"TAX:IE:CAT:THRESHOLD:GROUP_B", "2023-07-01", 32500},
		{"TAX:IE:CAT:THRESHOLD:GROUP_C", "2025-07-01", 20000},
		{"TAX:IE:CAT:RATE:STANDARD", "2012-12-05", 30},
		{"TAX:IE:CAT:RATE:STANDARD", "2012-12-06", 33},
		{"TAX:IE:CARBON_TAX:RATE:OTHER_FUELS", "2024-04-30", 48.5},
		{"TAX:IE:CARBON_TAX:RATE:OTHER_FUELS", "2024-05-01", 56},
		{"EMPLOYMENT:IE:NATIONAL_MINIMUM_WAGE:THRESHOLD:HOURLY_ADULT", "2023-12-31", 11.3},
		{"EMPLOYMENT:IE:NATIONAL_MINIMUM_WAGE:THRESHOLD:HOURLY_ADULT", "2024-01-01", 12.7},
		{"TAX:IE:VRT:RATE:CO2_115_TO_120G", "2022-01-01", 16},
		{"TAX:IE:VRT:RATE:CO2_170_TO_190G", "2024-07-01", 35},
		// Social Welfare Act 2021, s. 19: the 2018 Act's rates until its commencement days.
		{"PENSIONS:IE:STATE_PENSION_CONTRIBUTORY:BENEFIT:MAX_PERSONAL_RATE", "2022-01-06", 248.3},
		{"PENSIONS:IE:STATE_PENSION_CONTRIBUTORY:BENEFIT:MAX_PERSONAL_RATE", "2022-01-07", 253.3},
		{"SOCIAL_WELFARE:IE:JOBSEEKERS_BENEFIT:BENEFIT:MAX_PERSONAL_RATE", "2020-01-01", 203},
		// Social Welfare (Miscellaneous Provisions) Act 2023, s. 17(2)(d).
		{"PENSIONS:IE:STATE_PENSION_CONTRIBUTORY:BENEFIT:MAX_PERSONAL_RATE", "2024-01-05", 277.3},
		// Social Welfare Act 2021, s. 19(2)(a) and Schedule 1.
		{"SOCIAL_WELFARE:IE:JOBSEEKERS_BENEFIT:BENEFIT:MAX_PERSONAL_RATE", "2021-12-30", 208},
		{"EMPLOYMENT:UK:NATIONAL_LIVING_WAGE:THRESHOLD:HOURLY_YOUNGER_ADULT", "2021-04-01", 8.36},
		{"EMPLOYMENT:UK:NATIONAL_LIVING_WAGE:THRESHOLD:HOURLY_AGED_EIGHTEEN_TO_TWENTY", "2026-04-01", 10.85},
		{"EMPLOYMENT:UK:NATIONAL_LIVING_WAGE:THRESHOLD:HOURLY", "2020-04-01", 8.72},
		// Social Welfare (Miscellaneous Provisions) Act 2023, s. 17(2)(a).
		{"SOCIAL_WELFARE:IE:JOBSEEKERS_BENEFIT:BENEFIT:MAX_PERSONAL_RATE", "2023-12-28", 232},
		// Social Security Benefits Up-rating Order 2021, art. 1(3)(c) and 4(3).
		{"PENSIONS:UK:STATE_PENSION:BENEFIT:BASIC_FULL_RATE", "2021-04-12", 137.6},
		{"PENSIONS:UK:STATE_PENSION:BENEFIT:BASIC_FULL_RATE", "2021-04-11", 134.25},
		// Finance Act 2021, s. 93.
		{"TAX:UK:VAT:RATE:HOSPITALITY_TEMPORARY", "2021-10-01", 12.5},
	}
	for _, c := range cases {
		got, n := valueOn(ds, c.series, c.date)
		if n != 1 || got != c.want {
			t.Errorf("%s on %s: %v (%d values valid), want %v", c.series, c.date, got, n, c.want)
		}
	}
}

// A value known to have changed, whose successor no source gives yet, ends
// on the day before the change instead of reading as today's. (The 2026
// minimum wage, the 2023 contributory and 2026 non-contributory pensions
// are corroborated values now: see families/*_corroborated.json.)
func TestStaleValuesAreClosed(t *testing.T) {
	ds, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for series, date := range map[string]string{
		// The 21 to 22 band ended when the National Living Wage reached 21-year-olds.
		"EMPLOYMENT:UK:NATIONAL_LIVING_WAGE:THRESHOLD:HOURLY_YOUNGER_ADULT": "2024-04-01",
		// The temporary hospitality rate ended on 31 March 2022.
		"TAX:UK:VAT:RATE:HOSPITALITY_TEMPORARY":      "2022-04-01",
		"TAX:IE:VAT:RATE:FLAT_RATE_ADDITION":         "2024-06-30",
		"TAX:IE:CARBON_TAX:RATE:NATURAL_GAS_PER_MWH": "2022-06-30",
	} {
		if got, n := valueOn(ds, series, date); n != 0 {
			t.Errorf("%s on %s: %v, want no value", series, date, got)
		}
	}
}
