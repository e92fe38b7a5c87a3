package seeddata

import "testing"

const (
	ieTaxIT   = "TAX:IE:INCOME_TAX:"
	ieTaxUSC  = "TAX:IE:USC:"
	ieTaxPRSI = "SOCIAL_WELFARE:IE:PRSI:"
)

// ieTaxChangeDates are the values the sources give on each date.
var ieTaxChangeDates = []struct {
	series, date string
	want         float64
}{
	{ieTaxIT + "THRESHOLD:STANDARD_RATE_CUT_OFF_SINGLE", "2019-01-01", 35300},
	{ieTaxIT + "THRESHOLD:STANDARD_RATE_CUT_OFF_SINGLE", "2021-12-31", 35300},
	{ieTaxIT + "THRESHOLD:STANDARD_RATE_CUT_OFF_SINGLE", "2022-01-01", 36800},
	{ieTaxIT + "THRESHOLD:STANDARD_RATE_CUT_OFF_SINGLE", "2026-06-30", 44000},
	{ieTaxIT + "THRESHOLD:STANDARD_RATE_CUT_OFF_SINGLE_PARENT", "2021-06-30", 39300},
	{ieTaxIT + "THRESHOLD:STANDARD_RATE_CUT_OFF_SINGLE_PARENT", "2025-06-30", 48000},
	{ieTaxIT + "THRESHOLD:STANDARD_RATE_CUT_OFF_MARRIED_ONE_INCOME", "2019-06-30", 44300},
	{ieTaxIT + "THRESHOLD:STANDARD_RATE_CUT_OFF_MARRIED_ONE_INCOME", "2024-06-30", 51000},
	{ieTaxIT + "THRESHOLD:STANDARD_RATE_BAND_INCREASE_MAX", "2022-06-30", 27800},
	{ieTaxIT + "THRESHOLD:STANDARD_RATE_BAND_INCREASE_MAX", "2026-06-30", 35000},
	{ieTaxIT + "RATE:STANDARD", "2026-06-30", 20},
	{ieTaxIT + "RATE:HIGHER", "2019-01-01", 40},
	{ieTaxIT + "RELIEF:PERSONAL_CREDIT_MARRIED", "2021-12-31", 3300},
	{ieTaxIT + "RELIEF:PERSONAL_CREDIT_MARRIED", "2025-01-01", 4000},
	{ieTaxIT + "RELIEF:EARNED_INCOME_CREDIT", "2019-12-31", 1350},
	{ieTaxIT + "RELIEF:EARNED_INCOME_CREDIT", "2020-01-01", 1500},
	{ieTaxIT + "RELIEF:EARNED_INCOME_CREDIT", "2021-01-01", 1650},
	{ieTaxIT + "RELIEF:HOME_CARER_CREDIT", "2022-12-31", 1600},
	{ieTaxIT + "RELIEF:HOME_CARER_CREDIT", "2023-01-01", 1700},
	{ieTaxIT + "RELIEF:HOME_CARER_CREDIT", "2026-06-30", 1950},
	{ieTaxIT + "RELIEF:SINGLE_PERSON_CHILD_CARER_CREDIT", "2023-12-31", 1650},
	{ieTaxIT + "RELIEF:SINGLE_PERSON_CHILD_CARER_CREDIT", "2025-01-01", 1900},
	{ieTaxIT + "RELIEF:AGE_CREDIT_MARRIED", "2026-06-30", 490},
	{ieTaxIT + "RELIEF:RENT_CREDIT_SINGLE", "2023-12-31", 500},
	{ieTaxIT + "RELIEF:RENT_CREDIT_SINGLE", "2026-06-30", 1000},
	{ieTaxUSC + "RATE:BAND1", "2019-01-01", 0.5},
	{ieTaxUSC + "RATE:BAND3", "2019-06-30", 4.5},
	{ieTaxUSC + "RATE:BAND3", "2024-01-01", 4},
	{ieTaxUSC + "RATE:BAND4", "2021-06-30", 8},
	{ieTaxUSC + "RATE:REDUCED", "2026-06-30", 2},
	{ieTaxUSC + "THRESHOLD:REDUCED_RATE_INCOME_LIMIT", "2019-01-01", 60000},
	{ieTaxUSC + "THRESHOLD:EXEMPTION", "2026-06-30", 13000},
	{ieTaxPRSI + "THRESHOLD:CLASS_A_EMPLOYEE_WEEKLY", "2019-01-01", 352},
	{ieTaxPRSI + "RELIEF:PRSI_CREDIT", "2026-06-30", 12},
	{ieTaxPRSI + "RATE:CLASS_A_EMPLOYER_HIGHER", "2024-09-30", 11.05},
	{ieTaxPRSI + "RATE:CLASS_A_EMPLOYER_HIGHER", "2024-10-01", 11.15},
	{ieTaxPRSI + "RATE:CLASS_A_EMPLOYER_LOWER", "2025-10-01", 9},
	{ieTaxPRSI + "THRESHOLD:CLASS_A_EMPLOYER_HIGHER_RATE_WEEKLY", "2024-12-31", 496},
	{ieTaxPRSI + "THRESHOLD:CLASS_A_EMPLOYER_HIGHER_RATE_WEEKLY", "2025-01-01", 527},
	{ieTaxPRSI + "THRESHOLD:CLASS_A_EMPLOYER_HIGHER_RATE_WEEKLY", "2026-01-01", 552},
	{ieTaxPRSI + "RATE:CLASS_S", "2024-09-30", 4},
	{ieTaxPRSI + "RATE:CLASS_S", "2025-10-01", 4.2},
	{ieTaxPRSI + "THRESHOLD:CLASS_S_MINIMUM_CONTRIBUTION", "2024-09-30", 500},
	{ieTaxPRSI + "THRESHOLD:CLASS_S_MINIMUM_CONTRIBUTION", "2024-10-01", 650},
}

// The Irish income tax, USC and PRSI families: each year from 2019 gets the
// value its Finance Act, Revenue or DSP page gives, and exactly one; the
// day before and the day of each change.
func TestIETaxFamiliesOnChangeDates(t *testing.T) {
	ds, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ieTaxChangeDates {
		got, n := valueOn(ds, c.series, c.date)
		if n != 1 || got != c.want {
			t.Errorf("%s on %s: %v (%d values valid), want %v", c.series, c.date, got, n, c.want)
		}
	}
	// The USC second band's top: the band table's upper bound, by year.
	for date, want := range map[string]float64{"2019-06-30": 19874, "2020-06-30": 20484, "2021-06-30": 20687, "2022-06-30": 21295, "2023-06-30": 22920} {
		for _, n := range ds.Nodes {
			if n.Series == ieTaxUSC+"RATE:BAND2" && n.ValidFrom <= date && (n.ValidTo == "" || date <= n.ValidTo) {
				if got, _ := n.Properties["upperAmount"].(float64); got != want {
					t.Errorf("USC band 2 top on %s: %v, want %v", date, got, want)
				}
			}
		}
	}
}
