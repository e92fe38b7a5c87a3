package eval

import (
	"encoding/json"
	"testing"
)

func TestAnExampleIsExactOnlyWhenEveryFigureIs(t *testing.T) {
	var ex WorkedExample
	if err := json.Unmarshal([]byte(`{"figures":{"total":"8650.00","grossTax":"11380.00","usc":"1.00"},
		"sourceDiffers":[{"line":"usc","recomputed":"1.01"}]}`), &ex); err != nil {
		t.Fatal(err)
	}
	answer := func(total, gross, usc string) CalcAnswer {
		var a CalcAnswer
		a.Total = total
		a.Lines = append(a.Lines, struct {
			Name   string `json:"name"`
			Amount string `json:"amount"`
		}{"grossTax", gross}, struct {
			Name   string `json:"name"`
			Amount string `json:"amount"`
		}{"usc", usc})
		return a
	}
	if !exactExample(ex, answer("8650.00", "11380.00", "1.01")) {
		t.Error("every figure (and the recomputation) matches, yet not exact")
	}
	if exactExample(ex, answer("8650.01", "11380.00", "1.01")) {
		t.Error("a total a cent off counted as exact")
	}
	if exactExample(ex, answer("8650.00", "11380.00", "1.00")) {
		t.Error("the source's wrong figure counted instead of the recomputation")
	}
}

func TestACitationIsValidOnTheDateOrWithinItsYear(t *testing.T) {
	s := func(v string) *string { return &v }
	cases := []struct {
		c    Citation
		date string
		want bool
	}{
		{Citation{ValidFrom: s("2024-01-01")}, "2024-06-01", true},
		{Citation{ValidFrom: s("2024-10-01")}, "2024-01-01", true}, // a pay date later in the year
		{Citation{ValidFrom: s("2025-01-01")}, "2024-06-01", false},
		{Citation{ValidFrom: s("2020-01-01"), ValidTo: s("2023-12-31")}, "2024-06-01", false},
		{Citation{}, "2024-06-01", true},
	}
	for i, tc := range cases {
		if got := citedWithin(tc.c, tc.date); got != tc.want {
			t.Errorf("case %d: %v, want %v", i, got, tc.want)
		}
	}
}
