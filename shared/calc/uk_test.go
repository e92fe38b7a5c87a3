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

var ukToday = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

func seeded(t testing.TB) *memory.Store {
	t.Helper()
	g, err := memory.NewSeeded(ukToday)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func lineAmount(r calc.Result, name string) string {
	for _, l := range r.Lines {
		if l.Name == name {
			return l.Amount
		}
	}
	return "(no line " + name + ")"
}

// Expected figures are worked by hand from HMRC's published rates and
// bands for the year (gov.uk income tax and Scottish income tax pages,
// rates and thresholds for employers), not from our dataset.
func TestUKIncomeTax(t *testing.T) {
	g := seeded(t)
	cases := []struct {
		name, taxYear, inputs, want string
		lines                       map[string]string
	}{
		// gov.uk's own example: £35,000 with the standard allowance, basic rate on £22,430.
		{"basic rate", "2024/25", `{"income": "35000"}`, "4486.00", map[string]string{"personalAllowance": "12570.00", "basicRate": "4486.00", "higherRate": "0.00"}},
		{"allowance fully tapered", "2023/24", `{"income": 125140}`, "42516.00", map[string]string{"personalAllowance": "0.00", "higherRate": "34976.00", "additionalRate": "0.00"}},
		{"old additional rate threshold", "2022/23", `{"income": "160000"}`, "56960.00", map[string]string{"higherRate": "44920.00", "additionalRate": "4500.00"}},
		{"taper halfway", "2025/26", `{"income": "110001"}`, "33432.60", map[string]string{"personalAllowance": "7569.50"}},
		{"scottish with advanced band", "2024/25", `{"income": "80000", "region": "scotland"}`, "21778.31", map[string]string{"starterRate": "438.14", "intermediateRate": "3591.21", "advancedRate": "5000.00" /* replaced below */}},
		{"scottish 2026/27 starter and basic", "2026/27", `{"income": "16000", "region": "scotland"}`, "651.70", nil},
		{"no tax under the allowance", "2021/22", `{"income": "12570"}`, "0.00", nil},
		// 2019/20 and 2020/21: allowance 12,500, basic rate limit 37,500 (Finance Act 2019 s5).
		{"2019/20 higher rate", "2019/20", `{"income": "52000"}`, "8300.00", map[string]string{"basicRate": "7500.00", "higherRate": "800.00"}},
		{"2020/21 taper", "2020/21", `{"income": "110000"}`, "33500.00", map[string]string{"personalAllowance": "7500.00", "higherRate": "26000.00"}},
		// Scottish 2019/20 limits 2,049, 12,444, 30,930 (HMRC's Scottish income tax report 2020).
		{"scottish 2019/20", "2019/20", `{"income": "52000", "region": "scotland"}`, "9864.07", map[string]string{"starterRate": "389.31", "basicRate": "2079.00", "intermediateRate": "3882.06", "higherRate": "3513.70"}},
		// Scottish 2020/21 limits 2,085, 12,658, 30,930 (rates and thresholds for employers 2020 to 2021).
		{"scottish 2020/21", "2020/21", `{"income": "52000", "region": "scotland"}`, "9861.57", map[string]string{"starterRate": "396.15", "basicRate": "2114.60", "intermediateRate": "3837.12", "higherRate": "3513.70"}},
	}
	cases[4].lines["advancedRate"] = "2250.00"
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := calc.Run(context.Background(), g, calc.Request{Calculator: "uk_income_tax", TaxYear: c.taxYear, Inputs: json.RawMessage(c.inputs)}, ukToday)
			if err != nil {
				t.Fatal(err)
			}
			if r.Total != c.want || lineAmount(r, "incomeTax") != c.want {
				t.Errorf("total %s, want %s; lines %+v", r.Total, c.want, r.Lines)
			}
			for name, want := range c.lines {
				if got := lineAmount(r, name); got != want {
					t.Errorf("%s = %s, want %s", name, got, want)
				}
			}
			if r.Currency != "GBP" || len(r.Citations) == 0 {
				t.Errorf("currency %q, %d citations", r.Currency, len(r.Citations))
			}
			for _, cit := range r.Citations {
				if cit.URL == "" || (cit.ValidFrom != nil && *cit.ValidFrom > r.AsOf) || (cit.ValidTo != nil && *cit.ValidTo < r.AsOf) {
					t.Errorf("citation %s not valid on %s or without source", cit.NodeID, r.AsOf)
				}
			}
		})
	}
}

func TestUKNI(t *testing.T) {
	g := seeded(t)
	cases := []struct {
		name, asOf, inputs, employee, employer string
	}{
		// 8% of 967-242, 2% of 1000-967; employer 13.8% of 1000-175.
		{"weekly 2024/25", "2024-05-01", `{"earnings": "1000", "period": "weekly"}`, "58.66", "113.85"},
		// 13.25% of 1048-823 ... before 6 July 2022 the monthly PT was 823.
		{"monthly June 2022", "2022-06-30", `{"earnings": "2500", "period": "monthly"}`, "222.20", "262.17"},
		{"monthly December 2022", "2022-12-30", `{"earnings": "2500", "period": "monthly"}`, "174.24", "240.40"},
		// 3 payments at PT 823 and 13.25%, 4 at PT 1,048 and 13.25%, 5 at 12%.
		{"annual 2022/23 split", "2022-09-01", `{"earnings": "30000"}`, "2307.36", "3037.19"},
		// 12% of 3000-719; employer 13.8% of 3000-719 (2019/20 monthly PT and ST 719).
		{"monthly 2019/20", "2019-09-30", `{"earnings": "3000", "period": "monthly"}`, "273.72", "314.78"},
		// 12% of 962-183, 2% of 1000-962; employer 13.8% of 1000-169 (2020/21).
		{"weekly 2020/21 above the UEL", "2020-10-01", `{"earnings": "1000", "period": "weekly"}`, "94.24", "114.68"},
		{"employer 15% from April 2025", "2025-04-30", `{"earnings": "1000", "period": "monthly", "category": "A"}`, "0.00", "87.45"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := calc.Run(context.Background(), g, calc.Request{Calculator: "uk_ni", AsOf: c.asOf, Inputs: json.RawMessage(c.inputs)}, ukToday)
			if err != nil {
				t.Fatal(err)
			}
			if r.Total != c.employee || lineAmount(r, "employeeNi") != c.employee || lineAmount(r, "employerNi") != c.employer {
				t.Errorf("employee %s employer %s, want %s and %s; lines %+v", r.Total, lineAmount(r, "employerNi"), c.employee, c.employer, r.Lines)
			}
		})
	}
}

func TestUKCalculatorsRefuse(t *testing.T) {
	g := seeded(t)
	cases := []struct {
		calculator, asOf, inputs, field string
	}{
		{"uk_income_tax", "2024-05-01", `{"income": "1", "salary": "2"}`, "inputs.salary"},
		{"uk_income_tax", "2024-05-01", `{"income": "-1"}`, "inputs.income"},
		{"uk_income_tax", "2024-05-01", `{"income": "1", "region": "wales"}`, "inputs.region"},
		{"uk_income_tax", "2024-05-01", `{}`, "inputs.income"},
		{"uk_ni", "2024-05-01", `{"earnings": "1", "category": "C"}`, "inputs.category"},
		{"uk_ni", "2024-05-01", `{"earnings": "1", "period": "fortnightly"}`, "inputs.period"},
	}
	for _, c := range cases {
		_, err := calc.Run(context.Background(), g, calc.Request{Calculator: c.calculator, AsOf: c.asOf, Inputs: json.RawMessage(c.inputs)}, ukToday)
		var fe *calc.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s %s: %v, want a FieldError on %s", c.calculator, c.inputs, err, c.field)
		}
	}
	// Before the dataset's coverage: the missing series are named.
	for _, calculator := range []string{"uk_income_tax", "uk_ni"} {
		_, err := calc.Run(context.Background(), g, calc.Request{Calculator: calculator, TaxYear: "2018/19", Inputs: json.RawMessage(inputsFor(calculator))}, ukToday)
		var mf *calc.MissingFactsError
		if !errors.As(err, &mf) || len(mf.Series) == 0 {
			t.Errorf("%s in 2018/19: %v, want a MissingFactsError", calculator, err)
		}
	}
}

func inputsFor(calculator string) string {
	if calculator == "uk_ni" {
		return `{"earnings": "1000"}`
	}
	return `{"income": "30000"}`
}

func BenchmarkUKIncomeTaxCompute(b *testing.B) {
	g := seeded(b)
	req := calc.Request{Calculator: "uk_income_tax", TaxYear: "2024/25", Inputs: json.RawMessage(`{"income": "80000", "region": "scotland"}`)}
	for b.Loop() {
		if _, err := calc.Run(context.Background(), g, req, ukToday); err != nil {
			b.Fatal(err)
		}
	}
}
