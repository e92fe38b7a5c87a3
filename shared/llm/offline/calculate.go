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

// calculatorInputs is one calculator's line of the calculate tool: its
// inputs, the required ones, and each input's choices.
type calculatorInputs struct {
	fields   []string
	required map[string]bool
	choices  map[string][]string
}

// offeredCalculators reads the calculate tool's inputs description, one
// "- name(field*: a|b, field)" line per calculator.
func offeredCalculators(tools []llm.Tool) map[string]calculatorInputs {
	for _, tool := range tools {
		if tool.Name != CalculateTool {
			continue
		}
		props, _ := tool.Parameters["properties"].(map[string]any)
		inputs, _ := props["inputs"].(map[string]any)
		description, _ := inputs["description"].(string)
		out := map[string]calculatorInputs{}
		for _, line := range strings.Split(description, "\n") {
			name, args, ok := strings.Cut(strings.TrimPrefix(line, "- "), "(")
			if !ok || !strings.HasPrefix(line, "- ") {
				continue
			}
			c := calculatorInputs{required: map[string]bool{}, choices: map[string][]string{}}
			for _, field := range strings.Split(strings.TrimSuffix(args, ")"), ", ") {
				field, choices, hasChoices := strings.Cut(field, ": ")
				field, required := strings.CutSuffix(field, "*")
				c.fields = append(c.fields, field)
				c.required[field] = required
				if hasChoices {
					c.choices[field] = strings.Split(choices, "|")
				}
			}
			out[name] = c
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
	// The amount's currency names the jurisdiction where a concept has a
	// calculator in both: "income tax on £52,000" is the UK's, though the
	// lexicon's "income tax" is Ireland's.
	currencyJurisdiction := "IE"
	if strings.HasPrefix(m[0], "£") {
		currencyJurisdiction = "UK"
	}
	var calls []json.RawMessage
	called := map[string]bool{}
	for _, c := range concepts {
		kind := strings.ToLower(c.Kind)
		if k, ok := calculatorKind[c.Kind]; ok {
			kind = k
		}
		jurisdiction := c.Jurisdiction
		if _, ok := calculators[strings.ToLower(currencyJurisdiction)+"_"+kind]; ok {
			jurisdiction = currencyJurisdiction
		}
		name := strings.ToLower(jurisdiction) + "_" + kind
		inputs, ok := calculators[name]
		if !ok || called[name] {
			continue
		}
		called[name] = true
		req := map[string]any{"calculator": name, "inputs": inputsFor(inputs, amount, question)}
		if y := ukYearPattern.FindStringSubmatch(question); y != nil && jurisdiction == "UK" {
			req["taxYear"] = y[0]
		} else if y := calendarYear.FindString(question); y != "" && jurisdiction == "IE" {
			req["taxYear"] = y
		}
		if args, err := json.Marshal(req); err == nil {
			calls = append(calls, args)
		}
	}
	return calls
}

func inputsFor(c calculatorInputs, amount, question string) map[string]any {
	inputs := map[string]any{}
	lower := strings.ToLower(question)
	for _, name := range c.fields {
		switch {
		case name == "income" || name == "earnings":
			inputs[name] = amount
		case c.required[name] && name == "value":
			inputs[name] = amount
		case len(c.choices[name]) > 0:
			if c.required[name] {
				inputs[name] = c.choices[name][0]
			}
			// A choice the question names, as a whole word ("in Scotland":
			// scotland); a one-letter choice ("A") only in capitals.
			for _, choice := range c.choices[name] {
				if namesChoice(question, lower, choice) {
					inputs[name] = choice
					break
				}
			}
		}
	}
	return inputs
}

// namesChoice reports whether the question names choice as a whole word
// (underscores read as spaces), ignoring case but for one-letter choices.
func namesChoice(question, lower, choice string) bool {
	text, word := lower, strings.ReplaceAll(strings.ToLower(choice), "_", " ")
	if len(choice) == 1 {
		text, word = question, choice
	}
	for i := 0; ; {
		j := strings.Index(text[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		if (start == 0 || !isWordByte(text[start-1])) && (end == len(text) || !isWordByte(text[end])) {
			return true
		}
		i = start + 1
	}
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
