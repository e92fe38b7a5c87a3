package offline

import (
	"encoding/json"
	"strings"
	"testing"

	"regintel/shared/llm"
)

func calculateToolFor(lines ...string) []llm.Tool {
	return []llm.Tool{{Name: CalculateTool, Parameters: map[string]any{"properties": map[string]any{
		"inputs": map[string]any{"type": "object", "description": "inputs:\n" + strings.Join(lines, "\n")}}}}}
}

// A question with an amount and a concept an offered calculator computes
// gets a call with the amount, a choice the question names and its year;
// without an amount, or without such a calculator, none.
func TestCalculateCalls(t *testing.T) {
	tools := calculateToolFor(
		"- ie_income_tax(income*, status*: married_one_income|single, age)",
		"- uk_ni(earnings*, category: A, period: weekly|monthly|annual)",
	)
	ieTax := Concept{Domain: "TAX", Kind: "INCOME_TAX", Jurisdiction: "IE"}
	ni := Concept{Domain: "TAX", Kind: "NATIONAL_INSURANCE", Jurisdiction: "UK"}
	calls := calculateCalls("income tax on €52,000 in 2024, single?", []Concept{ieTax}, tools)
	if len(calls) != 1 {
		t.Fatalf("calls %s", calls)
	}
	var got struct {
		Calculator, TaxYear string
		Inputs              map[string]string
	}
	if err := json.Unmarshal(calls[0], &got); err != nil {
		t.Fatal(err)
	}
	if got.Calculator != "ie_income_tax" || got.TaxYear != "2024" || got.Inputs["income"] != "52000" || got.Inputs["status"] != "single" {
		t.Errorf("call %+v", got)
	}
	calls = calculateCalls("NI on £40k in 2025/26", []Concept{ni}, tools)
	if len(calls) != 1 || !json.Valid(calls[0]) || string(calls[0]) != `{"calculator":"uk_ni","inputs":{"earnings":"40000"},"taxYear":"2025/26"}` {
		t.Errorf("NI call %s", calls)
	}
	if calls := calculateCalls("how is income tax charged?", []Concept{ieTax}, tools); len(calls) != 0 {
		t.Errorf("no amount, yet %s", calls)
	}
	if calls := calculateCalls("VAT on €100?", []Concept{{Kind: "VAT", Jurisdiction: "IE"}}, tools); len(calls) != 0 {
		t.Errorf("no calculator, yet %s", calls)
	}
}
