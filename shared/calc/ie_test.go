package calc_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"regintel/shared/calc"
	"regintel/shared/graph"
	"regintel/shared/graph/memory"
)

var testToday = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// countingReader is the real store, counting FactSeries round trips.
type countingReader struct {
	graph.SeriesReader
	calls int
}

func (c *countingReader) FactSeries(ctx context.Context, series []string) ([]graph.Node, error) {
	c.calls++
	return c.SeriesReader.FactSeries(ctx, series)
}

func run(t *testing.T, g graph.SeriesReader, calculator, taxYear, asOf, inputs string) (calc.Result, error) {
	t.Helper()
	return calc.Run(context.Background(), g, calc.Request{Calculator: calculator, TaxYear: taxYear, AsOf: asOf, Inputs: json.RawMessage(inputs)}, testToday)
}

type lineCase struct {
	name, calculator, taxYear, asOf, inputs string
	want                                    map[string]string
}

func checkLines(t *testing.T, g graph.SeriesReader, cases []lineCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := run(t, g, c.calculator, c.taxYear, c.asOf, c.inputs)
			if err != nil {
				t.Fatal(err)
			}
			got := lineAmounts(res)
			for name, want := range c.want {
				if got[name] != want {
					t.Errorf("%s = %q, want %s", name, got[name], want)
				}
			}
		})
	}
}

func TestIEIncomeTaxBoundaries(t *testing.T) {
	g := seededGraph(t)
	checkLines(t, g, []lineCase{
		// 2024: single band 42,000; credits 1,875 + 1,875.
		{"band -1", "ie_income_tax", "2024", "", `{"status":"single","income":"41999"}`, map[string]string{"taxAtHigherRate": "0.00", "taxAtStandardRate": "8399.80"}},
		{"band", "ie_income_tax", "2024", "", `{"status":"single","income":"42000"}`, map[string]string{"taxAtHigherRate": "0.00", "grossTax": "8400.00", "taxPayable": "4650.00"}},
		{"band +1", "ie_income_tax", "2024", "", `{"status":"single","income":"42001"}`, map[string]string{"taxAtHigherRate": "0.40", "grossTax": "8400.40"}},
		// The employee credit is limited to 20% of pay below 9,375.
		{"employee credit limited", "ie_income_tax", "2024", "", `{"status":"single","income":"9374"}`, map[string]string{"employeeCredit": "1874.80", "taxPayable": "0.00"}},
		{"employee credit full", "ie_income_tax", "2024", "", `{"status":"single","income":"9376"}`, map[string]string{"employeeCredit": "1875.00"}},
		{"self-employed", "ie_income_tax", "2019", "", `{"status":"single","income":"30000","paye":false}`, map[string]string{"employeeCredit": "1350.00", "taxPayable": "3000.00"}},
		{"single parent 2025", "ie_income_tax", "2025", "", `{"status":"single_parent","income":"50000"}`, map[string]string{"standardRateBand": "48000.00", "singlePersonChildCarerCredit": "1900.00", "taxPayable": "4500.00"}},
		{"widowed 2022", "ie_income_tax", "2022", "", `{"status":"widowed","income":"30000"}`, map[string]string{"personalCredit": "2240.00", "taxPayable": "2060.00"}},
		{"age credit at 65", "ie_income_tax", "2023", "", `{"status":"single","income":"30000","age":65}`, map[string]string{"ageCredit": "245.00"}},
		{"married two incomes, lower income below the increase", "ie_income_tax", "2025", "", `{"status":"married_two_incomes","income":"60000","spouseIncome":"20000"}`, map[string]string{"standardRateBand": "73000.00", "taxPayable": "9400.00"}},
		{"rent credit capped", "ie_income_tax", "2023", "", `{"status":"single","income":"40000","extraCredits":{"rent":"900","medicalInsurance":"200"}}`, map[string]string{"rentCredit": "500.00", "credit:medicalInsurance": "200.00", "taxCredits": "4250.00"}},
	})
	res, err := run(t, g, "ie_income_tax", "2024", "", `{"status":"single","income":"10000"}`)
	if err != nil || res.Total != "0.00" || len(res.Citations) == 0 {
		t.Errorf("credits above the tax: total %s, %d citations, %v", res.Total, len(res.Citations), err)
	}
	if got := lineAmounts(res)["taxPayable"]; got != "0.00" {
		t.Errorf("taxPayable = %s, want 0.00 (unused credits are not refunded)", got)
	}
}

func TestIEUSCBoundaries(t *testing.T) {
	g := seededGraph(t)
	checkLines(t, g, []lineCase{
		{"at the exemption limit", "ie_usc", "2024", "", `{"income":"13000"}`, map[string]string{"usc": "0.00"}},
		{"a cent above it: charged on all", "ie_usc", "2024", "", `{"income":"13000.01"}`, map[string]string{"band1": "60.06", "band2": "19.76", "usc": "79.82"}},
		{"band 2 top", "ie_usc", "2025", "", `{"income":"27382"}`, map[string]string{"band2": "307.40", "usc": "367.46"}},
		{"band 2 top +1", "ie_usc", "2025", "", `{"income":"27383"}`, map[string]string{"band3": "0.03", "usc": "367.49"}},
		{"band 4", "ie_usc", "2019", "", `{"income":"100000"}`, map[string]string{"band2": "157.24", "band3": "2257.65", "band4": "2396.48", "usc": "4871.43"}},
		{"medical card at the limit", "ie_usc", "2024", "", `{"income":"60000","medicalCard":true}`, map[string]string{"band2": "274.96", "band3": "684.80", "usc": "1019.82"}},
		{"medical card above the limit", "ie_usc", "2024", "", `{"income":"60001","medicalCard":true}`, map[string]string{"band3": "1369.64", "usc": "1704.66"}},
		{"aged 70", "ie_usc", "2024", "", `{"income":"60000","age":70}`, map[string]string{"usc": "1019.82"}},
		{"a year of the largest monthly pay", "ie_net_pay", "2024", "", `{"status":"single","earnings":"10000000000","period":"monthly"}`, map[string]string{"incomeTax": "47999987850.00"}},
		{"aged 70, written 7.0e1", "ie_usc", "2024", "", `{"income":"60000","age":7.0e1}`, map[string]string{"usc": "1019.82"}},
		{"aged 69", "ie_usc", "2024", "", `{"income":"60000","age":69}`, map[string]string{"usc": "1704.62"}},
	})
}

func TestIEPRSI(t *testing.T) {
	g := seededGraph(t)
	checkLines(t, g, []lineCase{
		{"at the threshold", "ie_prsi", "", "2023-05-01", `{"earnings":"352","period":"weekly"}`, map[string]string{"employeePrsi": "0.00", "prsiCredit": "0.00"}},
		{"a cent above", "ie_prsi", "", "2023-05-01", `{"earnings":"352.01","period":"weekly"}`, map[string]string{"grossPrsi": "14.08", "employeePrsi": "2.08"}},
		{"credit top", "ie_prsi", "", "2023-05-01", `{"earnings":"424","period":"weekly"}`, map[string]string{"employeePrsi": "16.96"}},
		{"credit top +1", "ie_prsi", "", "2023-05-01", `{"earnings":"425","period":"weekly"}`, map[string]string{"prsiCredit": "0.00", "employeePrsi": "17.00"}},
		{"rate of the pay date, before", "ie_prsi", "", "2024-09-30", `{"earnings":"1000","period":"weekly"}`, map[string]string{"employeePrsi": "40.00"}},
		{"rate of the pay date, after", "ie_prsi", "", "2024-10-01", `{"earnings":"1000","period":"weekly"}`, map[string]string{"employeePrsi": "41.00"}},
		{"employer lower rate at the threshold", "ie_prsi", "", "2024-11-01", `{"earnings":"496","period":"weekly"}`, map[string]string{"employerPrsi": "44.14"}},
		{"employer higher rate a cent above", "ie_prsi", "", "2024-11-01", `{"earnings":"496.01","period":"weekly"}`, map[string]string{"employerPrsi": "55.31"}},
		{"monthly", "ie_prsi", "", "2025-03-01", `{"earnings":"2000","period":"monthly"}`, map[string]string{"employeePrsi": "82.00"}},
		{"a year without a change", "ie_prsi", "2023", "", `{"earnings":"52000"}`, map[string]string{"employeePrsi": "2080.00"}},
		{"2024: 39 weeks at 4%, 13 at 4.1%", "ie_prsi", "2024", "", `{"earnings":"52000"}`, map[string]string{"employeePrsi weeks 1-39": "1560.00", "employeePrsi weeks 40-52": "533.00", "employeePrsi": "2093.00"}},
		{"2025: 39 weeks at 4.1%, 13 at 4.2%", "ie_prsi", "2025", "", `{"earnings":"52000"}`, map[string]string{"employeePrsi weeks 1-39": "1599.00", "employeePrsi weeks 40-52": "546.00", "employeePrsi": "2145.00"}},
		{"Class S below the floor", "ie_prsi", "2023", "", `{"class":"S","earnings":"4999.99"}`, map[string]string{"employeePrsi": "0.00"}},
		{"Class S minimum", "ie_prsi", "2023", "", `{"class":"S","earnings":"5000"}`, map[string]string{"employeePrsi": "500.00"}},
		{"Class S split year", "ie_prsi", "2024", "", `{"class":"S","earnings":"20000"}`, map[string]string{"classS 9 months at 4%": "600.00", "classS 3 months at 4.1%": "205.00", "employeePrsi": "805.00"}},
	})
}

func TestIENetPayAndCAT(t *testing.T) {
	g := seededGraph(t)
	checkLines(t, g, []lineCase{
		{"single 2024", "ie_net_pay", "2024", "", `{"status":"single","income":"52000"}`, map[string]string{"incomeTax": "8650.00", "usc": "1384.62", "prsi": "2093.00", "totalDeductions": "12127.62", "netPay": "39872.38"}},
		{"benefit in kind is taxed, not paid", "ie_net_pay", "2024", "", `{"status":"single","income":"50000","benefitInKind":"2000"}`, map[string]string{"incomeTax": "8650.00", "netPay": "37872.38"}},
		{"weekly earnings annualised", "ie_net_pay", "2023", "", `{"status":"single","earnings":"1000","period":"weekly"}`, map[string]string{"prsi": "2080.00"}},
		{"CAT group B threshold", "ie_cat", "", "2025-01-01", `{"group":"B","value":"40000"}`, map[string]string{"cat": "0.00"}},
		{"CAT group B threshold +1", "ie_cat", "", "2025-01-01", `{"group":"B","value":"40001"}`, map[string]string{"cat": "0.33"}},
		{"CAT aggregation", "ie_cat", "", "2025-01-01", `{"group":"B","value":"20000","priorInGroup":"30000"}`, map[string]string{"taxableExcess": "10000.00", "cat": "3300.00"}},
		{"CAT threshold of the benefit's date", "ie_cat", "", "", `{"group":"A","value":"400000","date":"2024-10-01"}`, map[string]string{"threshold": "335000.00", "cat": "21450.00"}},
	})
}

// noxFixture is the seeded graph plus NOx bands as Revenue's VRT page
// states them from 2021 (€5, €15, €25 per mg/km), written the way a
// dataset value is.
func noxFixture(t *testing.T) *memory.Store {
	t.Helper()
	g := seededGraph(t)
	band := func(name string, lower, upper, perMg float64) graph.NodeWrite {
		props := map[string]any{"series": "TAX:IE:VRT:RATE:NOX_" + name, "valid_from": "2021-01-01", "status": "in_force",
			"amount": perMg, "currency": "EUR", "lower_amount": lower, "pref_label": "VRT NOx charge " + name,
			"source_url": "https://www.revenue.ie/en/importing-vehicles-duty-free-allowances/guide-to-vrt/calculating-vrt/calculating-the-nox-charge.aspx"}
		if upper > 0 {
			props["upper_amount"] = upper
		}
		return graph.NodeWrite{Label: "Rate", ID: "TAX:IE:VRT:RATE:NOX_" + name + ":2021-01-01", Props: props}
	}
	nodes := []graph.NodeWrite{band("0_TO_40MG", 0, 40, 5), band("40_TO_80MG", 40, 80, 15), band("ABOVE_80MG", 80, 0, 25)}
	if err := g.WriteNodesAndEdges(context.Background(), graph.MarkOfficial(nodes), nil, testToday); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestIEVRT(t *testing.T) {
	g := noxFixture(t)
	checkLines(t, g, []lineCase{
		{"band 115-120", "ie_vrt", "", "2025-03-01", `{"omsp":"30000","co2":"120","nox":"50"}`, map[string]string{"co2Charge": "4800.00", "noxCharge": "350.00", "vrt": "5150.00"}},
		{"numbers with exponents", "ie_vrt", "", "2025-03-01", `{"omsp":3e4,"co2":1.2e2,"nox":5E+1}`, map[string]string{"co2Charge": "4800.00", "noxCharge": "350.00", "vrt": "5150.00"}},
		{"co2 at a band top", "ie_vrt", "", "2025-03-01", `{"omsp":"30000","co2":"50","nox":"0"}`, map[string]string{"co2Charge": "2100.00", "noxCharge": "0.00"}},
		{"co2 just above", "ie_vrt", "", "2025-03-01", `{"omsp":"30000","co2":"50.1","nox":"0"}`, map[string]string{"co2Charge": "2700.00"}},
		{"nox in the top band", "ie_vrt", "", "", `{"omsp":"20000","co2":"0","nox":"100","date":"2023-06-01"}`, map[string]string{"co2Charge": "1400.00", "noxCharge": "1300.00", "vrt": "2700.00"}},
	})
	// Before the NOx charge (2020) the graph has no NOx bands: the calculation names them.
	_, err := run(t, seededGraph(t), "ie_vrt", "", "2019-06-01", `{"omsp":"30000","co2":"120","nox":"50"}`)
	var missing *calc.MissingFactsError
	if !errors.As(err, &missing) || !slices.Contains(missing.Series, "TAX:IE:VRT:RATE:NOX_*") {
		t.Errorf("without NOx bands: %v, want a MissingFactsError naming TAX:IE:VRT:RATE:NOX_*", err)
	}
	// Before the graph's first CO2 table (2013).
	_, err = run(t, g, "ie_vrt", "", "2012-06-01", `{"omsp":"30000","co2":"250","nox":"10"}`)
	if !errors.As(err, &missing) || !strings.Contains(strings.Join(missing.Series, " "), "CO2_") {
		t.Errorf("co2 before the table: %v, want a MissingFactsError naming the CO2 bands", err)
	}
}

func TestRunErrorsNameTheField(t *testing.T) {
	g := seededGraph(t)
	cases := []struct{ calculator, taxYear, asOf, inputs, field string }{
		{"ie_income_tax", "2024", "", `{"status":"single","income":"1","salary":"2"}`, "inputs.salary"},
		{"ie_income_tax", "2024", "", `{"status":"single","income":"-1"}`, "inputs.income"},
		{"ie_income_tax", "2024", "", `{"status":"single","income":"99999999999"}`, "inputs.income"},
		{"ie_income_tax", "2024", "", `{"status":"single","income":"1.001"}`, "inputs.income"},
		{"ie_income_tax", "2024", "", `{"income":"1"}`, "inputs.status"},
		{"ie_income_tax", "2024", "", `{"status":"married_two_incomes","income":"1"}`, "inputs.spouseIncome"},
		{"ie_income_tax", "2024/25", "", `{"status":"single","income":"1"}`, "taxYear"},
		{"ie_usc", "", "2024-02-30", `{"income":"1"}`, "asOf"},
		{"ie_usc", "", "", `{"income":"1","age":200}`, "inputs.age"},
		{"ie_usc", "", "", `{"income":"1","medicalCard":null}`, "inputs.medicalCard"},
		{"ie_usc", "", "", `{"income":"1","age":70.5}`, "inputs.age"},
		{"ie_usc", "", "", `{"income":"1","age":"70"}`, "inputs.age"},
		{"ie_vrt", "", "2025-01-01", `{"omsp":"1","co2":"10000.5","nox":"1"}`, "inputs.co2"},
		{"ie_vrt", "", "2025-01-01", `{"omsp":"1","co2":1e999,"nox":"1"}`, "inputs.co2"},
		{"ie_vrt", "", "2025-01-01", `{"omsp":"1e4","co2":"1","nox":"1"}`, "inputs.omsp"},
		{"ie_prsi", "2024", "", `{"class":"S","earnings":"1","period":"weekly"}`, "inputs.period"},
		{"ie_prsi", "2024", "", `{"class":"B","earnings":"1"}`, "inputs.class"},
		{"ie_cat", "", "2025-01-01", `{"group":"A","value":"1","date":"2024-01-01"}`, "inputs.date"},
		{"ie_vrt", "", "2025-01-01", `{"omsp":"1","co2":"1","nox":"1","category":"B"}`, "inputs.category"},
		{"nope", "", "", `{}`, "calculator"},
	}
	for _, c := range cases {
		_, err := run(t, g, c.calculator, c.taxYear, c.asOf, c.inputs)
		var fe *calc.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s %s: err %v, want a FieldError on %s", c.calculator, c.inputs, err, c.field)
		}
	}
	// A date before the dataset's values names what is missing.
	_, err := run(t, g, "ie_income_tax", "2015", "", `{"status":"single","income":"30000"}`)
	var missing *calc.MissingFactsError
	if !errors.As(err, &missing) || missing.Date != "2015-01-01" || !slices.Contains(missing.Series, "TAX:IE:INCOME_TAX:THRESHOLD:STANDARD_RATE_CUT_OFF_SINGLE") {
		t.Errorf("2015: %v, want a MissingFactsError naming the cut-off point", err)
	}
}

func TestRunReadsTheGraphOnce(t *testing.T) {
	for _, c := range calc.All() {
		if c.Jurisdiction() != "IE" {
			continue
		}
		reader := &countingReader{SeriesReader: seededGraph(t)}
		_, _ = calc.Run(context.Background(), reader, calc.Request{Calculator: c.Name(), AsOf: "2024-06-01", Inputs: json.RawMessage(`{}`)}, testToday)
		if reader.calls > 1 {
			t.Errorf("%s: %d FactSeries calls, want at most one", c.Name(), reader.calls)
		}
	}
	reader := &countingReader{SeriesReader: seededGraph(t)}
	if _, err := calc.Run(context.Background(), reader, calc.Request{Calculator: "ie_net_pay", TaxYear: "2024", Inputs: json.RawMessage(`{"status":"single","income":"52000"}`)}, testToday); err != nil || reader.calls != 1 {
		t.Errorf("ie_net_pay: %d calls, %v; want one read", reader.calls, err)
	}
}

func TestCalculatorsDescribeThemselves(t *testing.T) {
	names := []string{}
	for _, c := range calc.All() {
		names = append(names, c.Name())
		s := c.InputSchema()
		if s["type"] != "object" || s["additionalProperties"] != false || c.Description() == "" || len(c.Series("2024-01-01")) == 0 {
			t.Errorf("%s: schema %v, description %q", c.Name(), s, c.Description())
		}
		if got, ok := calc.Lookup(c.Name()); !ok || got.Name() != c.Name() {
			t.Errorf("Lookup(%s) failed", c.Name())
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("All() not sorted: %v", names)
	}
	for _, want := range []string{"ie_cat", "ie_income_tax", "ie_net_pay", "ie_prsi", "ie_usc", "ie_vrt"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s is not registered", want)
		}
	}
}
