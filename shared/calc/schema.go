package calc

// Small JSON Schema builders for the calculators' inputs.

func objectSchema(required []string, props map[string]any) map[string]any {
	s := map[string]any{"type": "object", "additionalProperties": false, "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func moneySchema(description string) map[string]any {
	return map[string]any{
		"type":        []string{"string", "number"},
		"pattern":     `^[0-9]+(\.[0-9]{1,2})?$`,
		"minimum":     0,
		"description": description + " A decimal string such as \"52000.00\".",
	}
}

func numberSchema(description string) map[string]any {
	return map[string]any{"type": []string{"string", "number"}, "minimum": 0, "description": description}
}

func enumSchema(description string, values ...string) map[string]any {
	return map[string]any{"type": "string", "enum": values, "description": description}
}

func boolSchema(description string) map[string]any {
	return map[string]any{"type": "boolean", "description": description}
}

func ageSchema(description string) map[string]any {
	return map[string]any{"type": "integer", "minimum": 0, "maximum": 130, "description": description}
}

func dateSchema(description string) map[string]any {
	return map[string]any{"type": "string", "format": "date", "description": description}
}
