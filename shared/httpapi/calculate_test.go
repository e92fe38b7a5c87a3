package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"regintel/shared/calc"
	"regintel/shared/httpapi/reply"
)

// POST /calculate answers a calc.Result (validated against the OpenAPI
// document by the harness) and refuses a bad request with a 400 naming the
// field or the missing facts.
func TestCalculate(t *testing.T) {
	e := newEnv(t, envOptions{})
	resp := e.post("/calculate", "application/json",
		`{"calculator": "uk_income_tax", "taxYear": "2024/25", "inputs": {"income": "35000"}}`, nil)
	if resp.Status != http.StatusOK {
		t.Fatalf("status %d: %s", resp.Status, resp.Body)
	}
	var res calc.Result
	if err := json.Unmarshal([]byte(resp.Body), &res); err != nil {
		t.Fatal(err)
	}
	// gov.uk's worked example: basic rate on £22,430 of £35,000.
	if res.Total != "4486.00" || res.AsOf != "2024-04-06" || res.Currency != "GBP" || len(res.Citations) == 0 {
		t.Errorf("result %+v", res)
	}

	cases := []struct {
		name, body, code, names string
	}{
		{"unknown calculator", `{"calculator": "uk_wealth_tax", "inputs": {}}`, "invalid_input", "calculator"},
		{"unknown input", `{"calculator": "uk_ni", "asOf": "2024-05-01", "inputs": {"earnings": "100", "salary": "1"}}`, "invalid_input", "inputs.salary"},
		{"negative amount", `{"calculator": "uk_income_tax", "asOf": "2024-05-01", "inputs": {"income": "-5"}}`, "invalid_input", "inputs.income"},
		{"bad date", `{"calculator": "uk_ni", "asOf": "2024-13-01", "inputs": {"earnings": "100"}}`, "invalid_input", "asOf"},
		{"empty date", `{"calculator": "uk_ni", "asOf": "", "inputs": {"earnings": "100"}}`, "invalid_input", "asOf"},
		{"empty tax year", `{"calculator": "uk_ni", "taxYear": "", "asOf": null, "inputs": {"earnings": "100"}}`, "invalid_input", "taxYear"},
		{"empty choice", `{"calculator": "uk_ni", "asOf": "2024-05-01", "inputs": {"earnings": "100", "period": ""}}`, "invalid_input", "inputs.period"},
		{"date outside coverage", `{"calculator": "uk_income_tax", "taxYear": "2015/16", "inputs": {"income": "30000"}}`, "facts_missing", "TAX:UK:INCOME_TAX:RATE:BASIC"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := e.post("/calculate", "application/json", c.body, nil)
			var body reply.ErrorBody
			if err := json.Unmarshal([]byte(resp.Body), &body); err != nil {
				t.Fatal(err)
			}
			if resp.Status != http.StatusBadRequest || body.Error.Code != c.code || !strings.Contains(body.Error.Message, c.names) {
				t.Errorf("%d %s: %s, want 400 %s naming %s", resp.Status, body.Error.Code, body.Error.Message, c.code, c.names)
			}
		})
	}
}
