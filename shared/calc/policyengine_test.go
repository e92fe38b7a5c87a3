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

// niSameBasis lists the NI comparisons made on the same basis as ours
// (POLICYENGINE.md explains every other year as a basis difference):
// PolicyEngine's weekly thresholds and rates equal HMRC's for the whole
// year only there.
var niSameBasis = map[string]struct{ employee, employer bool }{
	"2021/22": {employee: true, employer: true},
	"2023/24": {employer: true},
	"2024/25": {employer: true},
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
	itMatched := 0
	for _, p := range grid.IncomeTax {
		ours := run("uk_income_tax", calc.Request{TaxYear: p.TaxYear, Inputs: json.RawMessage(fmt.Sprintf(`{"income": %d, "region": %q}`, p.Income, p.Region))})
		if diff := ours - p.IncomeTax; diff > penny || diff < -penny {
			t.Errorf("income tax %s %s on %d: ours %.2f, PolicyEngine %.4f", p.TaxYear, p.Region, p.Income, ours, p.IncomeTax)
			continue
		}
		itMatched++
	}
	t.Logf("income tax: %d of %d points match PolicyEngine UK to the penny", itMatched, len(grid.IncomeTax))

	type tally struct{ compared, matched, otherBasis, otherBasisMatched int }
	ni := map[string]*tally{}
	for _, p := range grid.NI {
		req := calc.Request{Calculator: "uk_ni", TaxYear: p.TaxYear, Inputs: json.RawMessage(fmt.Sprintf(`{"earnings": %d, "period": "weekly"}`, p.WeeklyEarnings))}
		res, err := calc.Run(context.Background(), g, req, ukToday)
		if err != nil {
			t.Fatalf("uk_ni %s %d: %v", p.TaxYear, p.WeeklyEarnings, err)
		}
		var employer float64
		for _, l := range res.Lines {
			if l.Name == "employerNi" {
				fmt.Sscanf(l.Amount, "%g", &employer)
			}
		}
		var employee float64
		fmt.Sscanf(res.Total, "%g", &employee)
		same := niSameBasis[p.TaxYear]
		for _, side := range []struct {
			name      string
			ours, pe  float64
			sameBasis bool
		}{
			{"employee", employee, p.AnnualEmployee / 52, same.employee},
			{"employer", employer, p.AnnualEmployer / 52, same.employer},
		} {
			key := p.TaxYear + " " + side.name
			if ni[key] == nil {
				ni[key] = &tally{}
			}
			match := side.ours-side.pe <= penny && side.pe-side.ours <= penny
			if !side.sameBasis {
				ni[key].otherBasis++
				if match {
					ni[key].otherBasisMatched++
				}
				continue
			}
			ni[key].compared++
			if match {
				ni[key].matched++
			} else {
				t.Errorf("NI %s on %d a week: ours %.2f, PolicyEngine %.4f", key, p.WeeklyEarnings, side.ours, side.pe)
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(ni)) {
		c := ni[key]
		if c.compared > 0 {
			t.Logf("NI %s (weekly): %d of %d match to the penny", key, c.matched, c.compared)
		} else {
			t.Logf("NI %s (weekly): a basis difference; %d of %d happen to match", key, c.otherBasisMatched, c.otherBasis)
		}
	}
}
