package eval_test

import (
	"strings"
	"testing"
	"time"

	"regintel/shared/eval"
	"regintel/shared/graph/seeddata"
)

// valueOn is the dataset's value of series on date, and how many of its
// values cover the date.
func valueOn(ds seeddata.Dataset, series, date string) (float64, int) {
	var value float64
	found := 0
	for _, n := range ds.Nodes {
		if n.Series != series || (n.ValidFrom != "" && n.ValidFrom > date) || (n.ValidTo != "" && n.ValidTo < date) {
			continue
		}
		found++
		for _, key := range []string{"percent", "amount"} {
			if v, ok := n.Properties[key].(float64); ok {
				value = v
				break
			}
		}
	}
	return value, found
}

// The golden set and the dataset were written apart; every expected value
// is the dataset's value of its series on the expected date, so a wrong
// value in either shows here.
func TestGoldenSetAgreesWithTheDataset(t *testing.T) {
	ds, err := seeddata.Load()
	if err != nil {
		t.Fatal(err)
	}
	today := time.Now()
	for _, it := range golden(t) {
		if !it.Answerable() {
			continue
		}
		got, n := valueOn(ds, it.Series, it.ExpectedDate(today))
		if n != 1 || got != *it.Value {
			t.Errorf("%s: the dataset has %d values of %s on %s (%v), the golden set says %v", it.ID, n, it.Series, it.ExpectedDate(today), got, *it.Value)
		}
	}
}

// The set covers what it claims: at least 60 questions, 15 whose answer
// is not today's value, questions to decline, and every family.
func TestGoldenSetShape(t *testing.T) {
	ds, err := seeddata.Load()
	if err != nil {
		t.Fatal(err)
	}
	items := golden(t)
	today := time.Now().UTC().Format(time.DateOnly)
	notToday, decline := 0, 0
	series := map[string]bool{}
	for _, it := range items {
		if !it.Answerable() {
			decline++
			continue
		}
		series[it.Series] = true
		if now, n := valueOn(ds, it.Series, today); n == 1 && now != *it.Value {
			notToday++
		}
	}
	if len(items) < 60 || notToday < 15 || decline < 3 {
		t.Fatalf("%d questions, %d whose answer differs from today's value, %d to decline", len(items), notToday, decline)
	}
	for _, family := range []string{"TAX:IE:VAT:RATE:STANDARD", "TAX:IE:VAT:RATE:REDUCED", "TAX:IE:VAT:RATE:SECOND_REDUCED", "TAX:IE:VAT:RATE:HOSPITALITY",
		"TAX:IE:INCOME_TAX:THRESHOLD:", "TAX:IE:INCOME_TAX:RELIEF:", "TAX:IE:USC:RATE:", "SOCIAL_WELFARE:IE:PRSI:RATE:CLASS_A_EMPLOYEE",
		"TAX:IE:CARBON_TAX:", "EMPLOYMENT:IE:NATIONAL_MINIMUM_WAGE:", "TAX:IE:CGT:", "PENSIONS:IE:STATE_PENSION_CONTRIBUTORY:",
		"TAX:UK:INCOME_TAX:THRESHOLD:PERSONAL_ALLOWANCE", "TAX:UK:NATIONAL_INSURANCE:RATE:CLASS1_EMPLOYEE_MAIN", "TAX:UK:VAT:RATE:STANDARD",
		"EMPLOYMENT:UK:NATIONAL_LIVING_WAGE:", "TAX:IE:VRT:RATE:"} {
		covered := false
		for s := range series {
			covered = covered || strings.HasPrefix(s, family)
		}
		if !covered {
			t.Errorf("no question about %s", family)
		}
	}
}

func TestParseGoldenRefusesInconsistentItems(t *testing.T) {
	for name, doc := range map[string]string{
		"no value":       `{"items":[{"id":"a","question":"q","expectedAsOf":"today","series":"S"}]}`,
		"decline+series": `{"items":[{"id":"a","question":"q","expectedAsOf":"today","series":"S","value":1,"abstain":true}]}`,
		"bad date":       `{"items":[{"id":"a","question":"q","expectedAsOf":"2023-02-30","series":"S","value":1}]}`,
		"asOf differs":   `{"items":[{"id":"a","question":"q","asOf":"2023-01-01","expectedAsOf":"2023-07-01","series":"S","value":1}]}`,
		"repeated id":    `{"items":[{"id":"a","question":"q","expectedAsOf":"today","abstain":true},{"id":"a","question":"r","expectedAsOf":"today","abstain":true}]}`,
		"unknown field":  `{"items":[{"id":"a","question":"q","expectedAsOf":"today","abstain":true,"answer":"x"}]}`,
	} {
		if _, err := eval.ParseGolden([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
