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
	return amountSchema(description + " A decimal string such as \"52000.00\".")
}

// amountSchema states what CheckAmount accepts: a decimal string or a
// number, not negative, at most two decimal places, at most
// maxInputAmount (ten thousand million; the string pattern says so too).
func amountSchema(description string) map[string]any {
	return map[string]any{
		"type":        []string{"string", "number"},
		"pattern":     `^(10000000000(\.0{1,2})?|[0-9]{1,10}(\.[0-9]{1,2})?)$`,
		"minimum":     0,
		"maximum":     10_000_000_000,
		"multipleOf":  0.01,
		"description": description,
	}
}

// numberSchema is a measure such as g/km: a decimal string or a number from
// 0 to maxMeasure, any precision.
func numberSchema(description string) map[string]any {
	return map[string]any{
		"type":        []string{"string", "number"},
		"pattern":     `^(10000(\.0+)?|[0-9]{1,4}(\.[0-9]+)?)$`,
		"minimum":     0,
		"maximum":     vrtMaxEmission,
		"description": description,
	}
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
