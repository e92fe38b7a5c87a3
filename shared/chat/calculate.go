package chat

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"regintel/shared/calc"
	"regintel/shared/conversation"
	"regintel/shared/graph"
	"regintel/shared/llm"
)

// CalculateToolName is the tool that runs one of shared/calc's calculators
// over the graph's facts valid on the asked date.
const CalculateToolName = "calculate"

// CalculateTool offers every registered calculator. Its inputs are listed
// compactly in the schema's inputs description, one line per calculator:
// "- name(field*: a|b, field)", * marking a required input and | the
// choices; full JSON Schemas of every calculator would cost each turn
// thousands of prompt tokens.
func CalculateTool() llm.Tool { return calculateTool() }

// calculateTool is built once: the calculators are fixed at build time.
var calculateTool = sync.OnceValue(func() llm.Tool {
	var names []string
	var lines []string
	for _, c := range calc.All() {
		names = append(names, c.Name())
		lines = append(lines, "- "+c.Name()+"("+inputSignature(c.InputSchema())+")")
	}
	return llm.Tool{
		Name: CalculateToolName,
		Description: "Compute a tax or contribution amount exactly from the rules graph's dated facts, with a cited trace. " +
			"Use it for every amount the answer gives, and quote the trace's numbers. Amounts are decimal strings.",
		Parameters: map[string]any{
			"type":     "object",
			"required": []string{"calculator", "inputs"},
			"properties": map[string]any{
				"calculator": map[string]any{"type": "string", "enum": names},
				"asOf":       map[string]any{"type": "string", "description": "ISO date the amount is for"},
				"taxYear":    map[string]any{"type": "string", "description": `"2024" (Ireland) or "2024/25" (UK); give asOf or taxYear`},
				"inputs": map[string]any{"type": "object", "description": "the calculator's inputs (* required, | choices):\n" +
					strings.Join(lines, "\n")},
			},
		},
	}
})

// inputSignature is "field*: a|b, field" for an inputs schema.
func inputSignature(schema map[string]any) string {
	props, _ := schema["properties"].(map[string]any)
	required, _ := schema["required"].([]string)
	var fields []string
	for _, name := range slices.Sorted(maps.Keys(props)) {
		f := name
		if slices.Contains(required, name) {
			f += "*"
		}
		prop, _ := props[name].(map[string]any)
		if choices, ok := prop["enum"].([]string); ok {
			f += ": " + strings.Join(choices, "|")
		}
		fields = append(fields, f)
	}
	// Required inputs first, so a reader sees what it must give.
	slices.SortStableFunc(fields, func(a, b string) int {
		return boolRank(!strings.Contains(a, "*")) - boolRank(!strings.Contains(b, "*"))
	})
	return strings.Join(fields, ", ")
}

// seriesReader is the graph's fact series reader, when it has one.
func (e *Engine) seriesReader() (graph.SeriesReader, bool) {
	g, ok := e.graph.(graph.SeriesReader)
	return g, ok && len(calc.All()) > 0
}

// calculation is one calculate call: its result or the error the model reads.
type calculation struct {
	callID string
	result *calc.Result
	err    string
}

// runCalculation runs a calculate call; an error is told to the model, not
// to the user, so it can fix the call or answer without the figure.
func (t *Turn) runCalculation(ctx context.Context, callID string, args json.RawMessage) calculation {
	out := calculation{callID: callID}
	series, ok := t.e.seriesReader()
	if !ok {
		out.err = "calculations are not available here"
		return out
	}
	var req calc.Request
	if err := json.Unmarshal(args, &req); err != nil {
		out.err = "the arguments are not a calculation request"
		return out
	}
	res, err := calc.Run(ctx, series, req, time.Now())
	var field *calc.FieldError
	var missing *calc.MissingFactsError
	switch {
	case errors.As(err, &field), errors.As(err, &missing):
		out.err = err.Error()
	case err != nil:
		t.log.Warn("calculation failed", "calculator", req.Calculator, "err", err)
		out.err = "the calculation could not be made"
	default:
		out.result = &res
	}
	return out
}

// calculationOutput is what the model reads back for a calculate call.
func calculationOutput(c calculation) string {
	var b []byte
	if c.result != nil {
		b, _ = json.Marshal(c.result)
	} else {
		b, _ = json.Marshal(map[string]any{"status": "error", "error": c.err})
	}
	return string(b)
}

// calculationsOf are the turn's results, for metadata.calculations.
func calculationsOf(cs []calculation) []calc.Result {
	var out []calc.Result
	for _, c := range cs {
		if c.result != nil {
			out = append(out, *c.result)
		}
	}
	return out
}

// withCalculationCitations adds the calculations' citations to the turn's,
// each fact once.
func withCalculationCitations(cited []conversation.Citation, results []calc.Result) []conversation.Citation {
	seen := map[string]bool{}
	for _, c := range cited {
		seen[c.NodeID] = true
	}
	for _, r := range results {
		for _, c := range r.Citations {
			if !seen[c.NodeID] {
				seen[c.NodeID] = true
				cited = append(cited, c)
			}
		}
	}
	return cited
}
