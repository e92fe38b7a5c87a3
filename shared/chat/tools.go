package chat

import (
	"regintel/shared/concept"
	"regintel/shared/llm"
)

// CaptureConceptsTool is the capture_concepts function tool: the model
// names the regulatory concepts of the turn in the same streamed call that
// answers it.
func CaptureConceptsTool() llm.Tool {
	str := func() map[string]any { return map[string]any{"type": "string"} }
	return llm.Tool{
		Name:        concept.CaptureToolName,
		Description: "Capture SKOS-like regulatory concepts mentioned in this turn.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"concepts": map[string]any{
					"type": "array",
					"items": map[string]any{
						"type": "object",
						"properties": map[string]any{
							"domain":       str(),
							"kind":         str(),
							"jurisdiction": str(),
							"prefLabel":    str(),
							"altLabels":    map[string]any{"type": "array", "items": str()},
							"definition":   str(),
							"sourceUrls":   map[string]any{"type": "array", "items": map[string]any{"type": "string", "format": "uri"}},
						},
						"required": []string{"domain", "kind", "jurisdiction", "prefLabel"},
					},
				},
			},
			"required": []string{"concepts"},
		},
	}
}

// toolCost is the tokens a tool's definition costs, counted once per
// tool name: a tool's definition does not change while the engine runs.
func (e *Engine) toolCost(tool llm.Tool) int {
	if n, ok := e.toolCosts.Load(tool.Name); ok {
		return n.(int)
	}
	n := e.tokens.Count(tool.Name+" "+tool.Description) + e.tokens.Count(schemaJSON(tool.Parameters))
	e.toolCosts.Store(tool.Name, n)
	return n
}

// toolTokens estimates what the offered tools cost in the prompt: the
// JSON of each name, description and schema, and, with lookup_facts
// offered, the room its output may take (lookupReserve).
func (t *Turn) toolTokens(tools []llm.Tool) int {
	n := 0
	for _, tool := range tools {
		n += t.e.toolCost(tool)
		if tool.Name == LookupFactsToolName {
			n += t.lookupReserve()
		}
	}
	return n
}
