package chat_test

import (
	"encoding/json"
	"strings"
	"testing"

	"regintel/shared/calc"
	"regintel/shared/chat"
	"regintel/shared/llm"
	"regintel/shared/llm/llmtest"
	"regintel/shared/llm/offline"
)

func calculations(t *testing.T, m chat.Metadata) []calc.Result {
	t.Helper()
	var out []calc.Result
	if len(m.Calculations) > 0 {
		if err := json.Unmarshal(m.Calculations, &out); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// The model calls calculate; the engine runs it over the graph, sends the
// trace back, and the turn's metadata keeps the trace and its citations.
func TestCalculateToolTraceAndCitations(t *testing.T) {
	h := newHarness(t, "responses")
	call := llmtest.ToolCallJSON(chat.CalculateToolName, map[string]any{
		"calculator": "uk_income_tax", "taxYear": "2024/25", "inputs": map[string]any{"income": "35000"}}, 3)
	h.srv.Enqueue(llmtest.Script{Steps: []llmtest.Step{call}}, llmtest.TextScript("You would pay £4,486.00."))
	_, res := h.turn(chat.Request{Message: "How much income tax on £35,000 in 2024/25?", Profile: chat.Profile{Jurisdictions: []string{"UK"}}})
	if res.Status != "ok" {
		t.Fatalf("status %q", res.Status)
	}
	offered := false
	for _, tool := range h.srv.Requests()[0].Tools {
		offered = offered || tool.Name == chat.CalculateToolName
	}
	if !offered {
		t.Fatal("calculate was not offered")
	}
	inputs := chat.CalculateTool().Parameters["properties"].(map[string]any)["inputs"].(map[string]any)["description"].(string)
	for _, c := range calc.All() {
		if !strings.Contains(inputs, "- "+c.Name()+"(") {
			t.Errorf("the calculate tool does not list %s: %s", c.Name(), inputs)
		}
	}
	if !strings.Contains(inputs, "- uk_income_tax(income*, region: rUK|scotland)") {
		t.Errorf("uk_income_tax's inputs: %s", inputs)
	}
	var output string
	for _, m := range h.srv.Requests()[1].Messages {
		if m.Role == llm.RoleTool {
			output = m.Content
		}
	}
	if !strings.Contains(output, `"total":"4486.00"`) {
		t.Errorf("the model read back %s", output)
	}
	results := calculations(t, res.Metadata)
	if len(results) != 1 || results[0].Total != "4486.00" || results[0].Calculator != "uk_income_tax" {
		t.Fatalf("metadata.calculations %+v", results)
	}
	cited := map[string]bool{}
	for _, c := range res.Metadata.Citations {
		cited[c.NodeID] = true
	}
	for _, c := range results[0].Citations {
		if !cited[c.NodeID] {
			t.Errorf("the calculation's fact %s is not among the turn's citations", c.NodeID)
		}
	}
}

// A call the calculator refuses goes back to the model as an error naming
// the field, and leaves no trace in the metadata.
func TestCalculateToolErrorGoesToTheModel(t *testing.T) {
	h := newHarness(t, "responses")
	call := llmtest.ToolCallJSON(chat.CalculateToolName, map[string]any{
		"calculator": "uk_income_tax", "taxYear": "2024/25", "inputs": map[string]any{"income": "-1"}}, 3)
	h.srv.Enqueue(llmtest.Script{Steps: []llmtest.Step{call}}, llmtest.TextScript("I cannot compute that."))
	_, res := h.turn(chat.Request{Message: "Income tax on minus one pound?"})
	var output string
	for _, m := range h.srv.Requests()[1].Messages {
		if m.Role == llm.RoleTool {
			output = m.Content
		}
	}
	if !strings.Contains(output, "inputs.income") || len(calculations(t, res.Metadata)) != 0 {
		t.Errorf("output %s, calculations %s", output, res.Metadata.Calculations)
	}
}

// With no model key, the offline model calls calculate for a question with
// an amount and a calculator's concept, and quotes the trace's totals.
func TestOfflineModelCalculates(t *testing.T) {
	h := newHarness(t, "responses", func(d *chat.Deps, _ *chat.Config) { d.Provider = offline.New(offline.Config{}) })
	s, res := h.turn(chat.Request{Message: "how much income tax and USC on €52,000 in 2024, single?"})
	results := calculations(t, res.Metadata)
	names := map[string]calc.Result{}
	for _, r := range results {
		names[r.Calculator] = r
	}
	tax, usc := names["ie_income_tax"], names["ie_usc"]
	if tax.Total == "" || usc.Total == "" || tax.AsOf != "2024-01-01" {
		t.Fatalf("calculations %+v", results)
	}
	if !strings.Contains(s.text(), tax.Total) || !strings.Contains(s.text(), usc.Total) {
		t.Errorf("the answer does not quote the totals %s and %s: %s", tax.Total, usc.Total, s.text())
	}
	for _, r := range results {
		for _, c := range r.Citations {
			if (c.ValidFrom != nil && *c.ValidFrom > r.AsOf) || (c.ValidTo != nil && *c.ValidTo < r.AsOf) {
				t.Errorf("%s cites %s, not valid on %s", r.Calculator, c.NodeID, r.AsOf)
			}
		}
	}
}

// A pound amount of income tax is the UK's: the offline model calls
// uk_income_tax with the region and tax year the question names.
func TestOfflineModelCalculatesUKIncomeTax(t *testing.T) {
	h := newHarness(t, "responses", func(d *chat.Deps, _ *chat.Config) { d.Provider = offline.New(offline.Config{}) })
	s, res := h.turn(chat.Request{Message: "income tax on £52,000 in 2024/25 in Scotland"})
	results := calculations(t, res.Metadata)
	if len(results) != 1 || results[0].Calculator != "uk_income_tax" || results[0].AsOf != "2024-04-06" || results[0].Currency != "GBP" {
		t.Fatalf("calculations %+v", results)
	}
	// Worked by hand from HMRC's 2024/25 Scottish bands: 19% of 2,306,
	// 20% of 11,685, 21% of 17,101, 42% of 8,338 on 39,430 taxable:
	// 438.14 + 2,337.00 + 3,591.21 + 3,501.96.
	if r := results[0]; r.Total != "9868.31" || !strings.Contains(s.text(), r.Total) {
		t.Errorf("total %s (want 9868.31), answer %s", r.Total, s.text())
	}
}
