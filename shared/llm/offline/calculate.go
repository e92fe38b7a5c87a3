package offline

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"regintel/shared/llm"
)

// CalculateTool is the calculation tool the offline model calls when a
// question names an amount and a concept one of the offered calculators
// computes.
const CalculateTool = "calculate"

var (
	moneyPattern   = regexp.MustCompile(`[€£]\s?(\d[\d,]*(?:\.\d{1,2})?)(k?)\b`)
	ukYearPattern  = regexp.MustCompile(`\b(20\d{2})/(\d{2})\b`)
	calendarYear   = regexp.MustCompile(`\b(20\d{2})\b`)
	calculatorKind = map[string]string{"NATIONAL_INSURANCE": "ni"}
)

// offeredCalculators reads the calculate tool's branches: each
// calculator's name and its inputs' schema.
func offeredCalculators(tools []llm.Tool) map[string]map[string]any {
	for _, tool := range tools {
		if tool.Name != CalculateTool {
			continue
		}
		out := map[string]map[string]any{}
		branches, _ := tool.Parameters["oneOf"].([]any)
		for _, b := range branches {
			props, _ := b.(map[string]any)["properties"].(map[string]any)
			name, _ := props["calculator"].(map[string]any)["const"].(string)
			inputs, _ := props["inputs"].(map[string]any)
			if name != "" && inputs != nil {
				out[name] = inputs
			}
		}
		return out
	}
	return nil
}

// calculateCalls are the calculate calls for question: one per recognised
// concept that an offered calculator computes, when the question names an
// amount. Other inputs take their default, or the first of their choices
// the question names, or the first choice.
func calculateCalls(question string, concepts []Concept, tools []llm.Tool) []json.RawMessage {
	calculators := offeredCalculators(tools)
	m := moneyPattern.FindStringSubmatch(question)
	if len(calculators) == 0 || m == nil {
		return nil
	}
	amount := strings.ReplaceAll(m[1], ",", "")
	if m[2] == "k" {
		amount += "000"
	}
	var calls []json.RawMessage
	for _, c := range concepts {
		kind := strings.ToLower(c.Kind)
		if k, ok := calculatorKind[c.Kind]; ok {
			kind = k
		}
		name := strings.ToLower(c.Jurisdiction) + "_" + kind
		schema, ok := calculators[name]
		if !ok {
			continue
		}
		req := map[string]any{"calculator": name, "inputs": inputsFor(schema, amount, question)}
		if y := ukYearPattern.FindStringSubmatch(question); y != nil && c.Jurisdiction == "UK" {
			req["taxYear"] = y[0]
		} else if y := calendarYear.FindString(question); y != "" && c.Jurisdiction == "IE" {
			req["taxYear"] = y
		}
		if args, err := json.Marshal(req); err == nil {
			calls = append(calls, args)
		}
	}
	return calls
}

func inputsFor(schema map[string]any, amount, question string) map[string]any {
	props, _ := schema["properties"].(map[string]any)
	required, _ := schema["required"].([]string)
	inputs := map[string]any{}
	lower := strings.ToLower(question)
	for _, name := range required {
		prop, _ := props[name].(map[string]any)
		switch {
		case name == "income" || name == "earnings" || name == "value":
			inputs[name] = amount
		case prop["enum"] != nil:
			choices, _ := prop["enum"].([]string)
			if len(choices) == 0 {
				continue
			}
			inputs[name] = choices[0]
			for _, choice := range choices {
				if strings.Contains(lower, strings.ReplaceAll(strings.ToLower(choice), "_", " ")) {
					inputs[name] = choice
					break
				}
			}
		}
	}
	if _, ok := props["income"]; ok {
		inputs["income"] = amount
	} else if _, ok := props["earnings"]; ok {
		inputs["earnings"] = amount
	}
	return inputs
}

// calculatedFigures repeats the calculations the tool returned since the
// question, so a local run quotes the trace's numbers as a real model would.
func calculatedFigures(messages []llm.Message) string {
	var figures []string
	for i := len(messages) - 1; i >= 0 && messages[i].Role != llm.RoleUser; i-- {
		if messages[i].Role != llm.RoleTool {
			continue
		}
		var r struct {
			Calculator, AsOf, Currency, Total string
		}
		if json.Unmarshal([]byte(messages[i].Content), &r) != nil || r.Calculator == "" {
			continue
		}
		figures = append([]string{fmt.Sprintf("%s on %s: %s %s", r.Calculator, r.AsOf, r.Total, r.Currency)}, figures...)
	}
	if len(figures) == 0 {
		return ""
	}
	return " Calculated from the graph's facts: " + strings.Join(figures, "; ") + "."
}
