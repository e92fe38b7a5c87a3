package calc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"regintel/shared/calc"
)

// policyEngineGrid is what testdata/policyengine/grid.py writes.
type policyEngineGrid struct {
	IncomeTax []struct {
		TaxYear   string  `json:"taxYear"`
		Region    string  `json:"region"`
		Income    int64   `json:"income"`
		IncomeTax float64 `json:"incomeTax"`
	} `json:"incomeTax"`
	NI []struct {
		TaxYear        string  `json:"taxYear"`
		WeeklyEarnings int64   `json:"weeklyEarnings"`
		AnnualEmployee float64 `json:"annualEmployee"`
		AnnualEmployer float64 `json:"annualEmployer"`
	} `json:"ni"`
}

// basisDifference names why a point may differ from PolicyEngine: each
// is a row of POLICYENGINE.md's table. A point no rule covers must match.
type basisDifference struct {
	name  string
	taxIT func(taxYear, region string, income int64) bool
	taxNI func(taxYear, side string, weekly int64) bool
}

var basisDifferences = []basisDifference{
	{name: "allowance taper: PolicyEngine reduces the allowance by whole pounds, we by exactly half the excess (ITA 2007 s35(2))",
		taxIT: func(_, _ string, income int64) bool {
			return income > 100000 && income < 125140 && (income-100000)%2 == 1
		}},
	{name: "PolicyEngine's 2021/22 Scottish starter and basic limits are 2024/25's (2,306 and 13,991; HMRC: 2,097 and 12,726)",
		taxIT: func(taxYear, region string, income int64) bool {
			return taxYear == "2021/22" && region == "scotland" && income > 14667
		}},
	{name: "mid-year changes: PolicyEngine charges calendar months at the value of the month's start; we each payment at its pay date",
		taxNI: func(taxYear, side string, _ int64) bool {
			return taxYear == "2022/23" || (taxYear == "2023/24" && side == "employee")
		}},
	{name: "PolicyEngine's weekly Upper Earnings Limit is 50,270 / 52 = 966.73; HMRC's table says 967",
		taxNI: func(_, side string, weekly int64) bool { return side == "employee" && weekly > 966 }},
	{name: "PolicyEngine's weekly Primary Threshold from July 2022 is 12,570 / 52 = 241.73; HMRC's table says 242",
		taxNI: func(taxYear, side string, weekly int64) bool {
			return side == "employee" && taxYear >= "2022/23" && weekly > 241
		}},
	{name: "PolicyEngine's 2025/26 Secondary Threshold is 5,000 / 52 = 96.15 a week; HMRC's table says 96",
		taxNI: func(taxYear, side string, weekly int64) bool {
			return side == "employer" && taxYear >= "2025/26" && weekly > 95
		}},
}

// penny is the tolerance: PolicyEngine computes in float32, whose spacing
// near £50,000 is about 0.4p, so its figure is compared to the penny.
const penny = 0.01

// TestPolicyEngineDifferential compares uk_income_tax and uk_ni with
// PolicyEngine UK on the grid scripts/test.d/policyengine.sh computes. It
// is skipped when the grid has not been computed.
func TestPolicyEngineDifferential(t *testing.T) {
	path := os.Getenv("POLICYENGINE_GRID")
	if path == "" {
		path = filepath.Join("..", "..", ".testenv", "policyengine", "grid.json")
	}
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Skip("no PolicyEngine grid: run scripts/test.d/policyengine.sh")
	}
	if err != nil {
		t.Fatal(err)
	}
	var grid policyEngineGrid
	if err := json.Unmarshal(raw, &grid); err != nil {
		t.Fatal(err)
	}
	if len(grid.IncomeTax) == 0 {
		t.Fatal("the grid has no income tax points")
	}
	g := seeded(t)
	run := func(calculator string, req calc.Request) float64 {
		t.Helper()
		req.Calculator = calculator
		res, err := calc.Run(context.Background(), g, req, ukToday)
		if err != nil {
			t.Fatalf("%s %s %s: %v", calculator, req.TaxYear, req.Inputs, err)
		}
		var v float64
		fmt.Sscanf(res.Total, "%g", &v)
		return v
	}
	tally := map[string]int{}
	itMatched := 0
	for _, p := range grid.IncomeTax {
		ours := run("uk_income_tax", calc.Request{TaxYear: p.TaxYear, Inputs: json.RawMessage(fmt.Sprintf(`{"income": %d, "region": %q}`, p.Income, p.Region))})
		if diff := ours - p.IncomeTax; diff <= penny && diff >= -penny {
			itMatched++
			continue
		}
		if rule := coveredBy(func(b basisDifference) bool { return b.taxIT != nil && b.taxIT(p.TaxYear, p.Region, p.Income) }); rule != "" {
			tally[rule]++
			continue
		}
		t.Errorf("income tax %s %s on %d: ours %.2f, PolicyEngine %.4f", p.TaxYear, p.Region, p.Income, ours, p.IncomeTax)
	}
	t.Logf("income tax: %d of %d points match PolicyEngine UK to the penny", itMatched, len(grid.IncomeTax))

	niMatched, niPoints := 0, 0
	for _, p := range grid.NI {
		req := calc.Request{Calculator: "uk_ni", TaxYear: p.TaxYear, Inputs: json.RawMessage(fmt.Sprintf(`{"earnings": %d, "period": "weekly"}`, p.WeeklyEarnings))}
		res, err := calc.Run(context.Background(), g, req, ukToday)
		if err != nil {
			t.Fatalf("uk_ni %s %d: %v", p.TaxYear, p.WeeklyEarnings, err)
		}
		var employee, employer float64
		fmt.Sscanf(res.Total, "%g", &employee)
		for _, l := range res.Lines {
			if l.Name == "employerNi" {
				fmt.Sscanf(l.Amount, "%g", &employer)
			}
		}
		for _, side := range []struct {
			name     string
			ours, pe float64
		}{
			{"employee", employee, p.AnnualEmployee / 52},
			{"employer", employer, p.AnnualEmployer / 52},
		} {
			niPoints++
			if side.ours-side.pe <= penny && side.pe-side.ours <= penny {
				niMatched++
				continue
			}
			if rule := coveredBy(func(b basisDifference) bool { return b.taxNI != nil && b.taxNI(p.TaxYear, side.name, p.WeeklyEarnings) }); rule != "" {
				tally[rule]++
				continue
			}
			t.Errorf("NI %s %s on %d a week: ours %.2f, PolicyEngine %.4f", p.TaxYear, side.name, p.WeeklyEarnings, side.ours, side.pe)
		}
	}
	t.Logf("NI (weekly, employee and employer): %d of %d comparisons match PolicyEngine UK to the penny", niMatched, niPoints)
	for _, rule := range slices.Sorted(maps.Keys(tally)) {
		t.Logf("differ by a documented basis difference: %d: %s", tally[rule], rule)
	}
}

// coveredBy is the first basis difference that covers a point, or "".
func coveredBy(covers func(basisDifference) bool) string {
	for _, b := range basisDifferences {
		if covers(b) {
			return b.name
		}
	}
	return ""
}
