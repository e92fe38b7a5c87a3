package calc_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"regintel/shared/calc"
	"regintel/shared/graph/memory"
)

func TestDecimalRound(t *testing.T) {
	cases := []struct {
		in     string
		places int
		mode   calc.Rounding
		want   string
	}{
		{"1.005", 2, calc.HalfUp, "1.01"},
		{"1.0049", 2, calc.HalfUp, "1"},
		{"-1.005", 2, calc.HalfUp, "-1.01"},
		{"1.009", 2, calc.Down, "1"},
		{"1.001", 2, calc.Up, "1.01"},
		{"1.00", 2, calc.Up, "1"},
		{"2.5", 0, calc.HalfUp, "3"},
		{"2.4999", 0, calc.HalfUp, "2"},
	}
	for _, c := range cases {
		if got := calc.MustDecimal(c.in).Round(c.places, c.mode).String(); got != c.want {
			t.Errorf("Round(%s, %d, %d) = %s, want %s", c.in, c.places, c.mode, got, c.want)
		}
	}
	if got := calc.MustDecimal("1234.5").Money(); got != "1234.50" {
		t.Errorf("Money = %s", got)
	}
	if got := calc.MustDecimal("52000").Percent(calc.MustDecimal("4.1")).Money(); got != "2132.00" {
		t.Errorf("4.1%% of 52000 = %s", got)
	}
	for _, bad := range []string{"", "1e5", "1,000", "abc", "1/3"} {
		if _, err := calc.ParseDecimal(bad); err == nil {
			t.Errorf("ParseDecimal(%q) accepted", bad)
		}
	}
}

func TestDecodeInputsNamesTheField(t *testing.T) {
	type in struct {
		Income *calc.Decimal `json:"income"`
		Paye   *bool         `json:"paye"`
	}
	cases := []struct{ raw, field string }{
		{`{"income": "1", "salary": 2}`, "inputs.salary"},
		{`{"income": "12x"}`, "inputs.income"},
		{`{"paye": "yes"}`, "inputs.paye"},
		{`[1]`, "inputs"},
	}
	for _, c := range cases {
		var v in
		err := calc.DecodeInputs(json.RawMessage(c.raw), &v)
		var fe *calc.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s: err %v, want field %s", c.raw, err, c.field)
		}
	}
	var v in
	if err := calc.DecodeInputs(json.RawMessage(`{"income": 52000.5, "paye": false}`), &v); err != nil || v.Income.String() != "52000.5" || *v.Paye {
		t.Errorf("decode: %v %+v", err, v)
	}
}

func TestResolveDate(t *testing.T) {
	today := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		req          calc.Request
		jurisdiction string
		want, field  string
	}{
		{calc.Request{AsOf: "2024-10-01"}, "IE", "2024-10-01", ""},
		{calc.Request{TaxYear: "2024"}, "IE", "2024-01-01", ""},
		{calc.Request{TaxYear: "2024/25"}, "UK", "2024-04-06", ""},
		{calc.Request{}, "IE", "2026-11-28", ""},
		{calc.Request{AsOf: "2024-13-01"}, "IE", "", "asOf"},
		{calc.Request{AsOf: "0224-01-01"}, "IE", "", "asOf"},
		{calc.Request{TaxYear: "2024/26"}, "UK", "", "taxYear"},
		{calc.Request{TaxYear: "2024/25"}, "IE", "", "taxYear"},
		{calc.Request{TaxYear: "2024"}, "UK", "", "taxYear"},
		{calc.Request{AsOf: "2024-01-01", TaxYear: "2024"}, "IE", "", "taxYear"},
	}
	for _, c := range cases {
		got, err := calc.ResolveDate(c.req, c.jurisdiction, today)
		var fe *calc.FieldError
		switch {
		case c.field != "" && (!errors.As(err, &fe) || fe.Field != c.field):
			t.Errorf("%+v: err %v, want field %s", c.req, err, c.field)
		case c.field == "" && (err != nil || got != c.want):
			t.Errorf("%+v = %q, %v; want %q", c.req, got, err, c.want)
		}
	}
	for _, c := range []struct{ date, j, from, to string }{
		{"2025-04-05", "UK", "2024-04-06", "2025-04-05"},
		{"2025-04-06", "UK", "2025-04-06", "2026-04-05"},
		{"2025-04-06", "IE", "2025-01-01", "2025-12-31"},
	} {
		from, to, err := calc.TaxYearBounds(c.date, c.j)
		if err != nil || from != c.from || to != c.to {
			t.Errorf("TaxYearBounds(%s, %s) = %s, %s, %v", c.date, c.j, from, to, err)
		}
	}
}

func TestRunUnknownCalculator(t *testing.T) {
	_, err := calc.Run(context.Background(), memory.New(), calc.Request{Calculator: "nope"}, time.Now())
	var fe *calc.FieldError
	if !errors.As(err, &fe) || fe.Field != "calculator" {
		t.Fatalf("err = %v, want a FieldError on calculator", err)
	}
}
