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

// A pound amount takes a concept to its UK calculator where one is
// offered ("income tax" is Ireland's in the lexicon), an optional choice the
// question names is given, and a concept recognised twice is called once.
func TestCalculateCallsUKIncomeTax(t *testing.T) {
	tools := calculateToolFor(
		"- ie_income_tax(income*, status*: married_one_income|single, age)",
		"- uk_income_tax(income*, region: rUK|scotland)",
		"- uk_ni(earnings*, category: A, period: weekly|monthly|annual)",
	)
	ieTax := Concept{Domain: "TAX", Kind: "INCOME_TAX", Jurisdiction: "IE"}
	calls := calculateCalls("income tax on £52,000 in 2024/25 in Scotland", []Concept{ieTax, ieTax}, tools)
	if len(calls) != 1 || string(calls[0]) != `{"calculator":"uk_income_tax","inputs":{"income":"52000","region":"scotland"},"taxYear":"2024/25"}` {
		t.Errorf("UK income tax calls %s", calls)
	}
	calls = calculateCalls("what income tax is due on £30k a year?", []Concept{ieTax}, tools)
	if len(calls) != 1 || string(calls[0]) != `{"calculator":"uk_income_tax","inputs":{"income":"30000"}}` {
		t.Errorf("rUK income tax calls %s", calls)
	}
	calls = calculateCalls("income tax on €52,000 in 2024, single?", []Concept{ieTax}, tools)
	if len(calls) != 1 || !strings.Contains(string(calls[0]), `"calculator":"ie_income_tax"`) {
		t.Errorf("a euro amount stays Irish: %s", calls)
	}
	ni := Concept{Domain: "TAX", Kind: "NATIONAL_INSURANCE", Jurisdiction: "UK"}
	calls = calculateCalls("NI on £900 a week, paid weekly, as a category A employee", []Concept{ni}, tools)
	if len(calls) != 1 || string(calls[0]) != `{"calculator":"uk_ni","inputs":{"category":"A","earnings":"900","period":"weekly"}}` {
		t.Errorf("NI with named choices %s", calls)
	}
	if calls := calculateCalls("NI on £900 a week as a worker", []Concept{ni}, tools); len(calls) != 1 || strings.Contains(string(calls[0]), "category") {
		t.Errorf("the article a is no category: %s", calls)
	}
}
