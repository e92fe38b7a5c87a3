package graph

// ValueOf is a fact's number and unit as citations give them: a percent
// ("%"), else an amount in its currency, per its period or unit when it
// names one ("EUR/week", "EUR/tonne_co2"); nil for a fact without one.
func ValueOf(props map[string]any) (*float64, string) {
	if v, ok := number(props["percent"]); ok {
		return &v, "%"
	}
	for _, key := range []string{"amount", "value"} {
		v, ok := number(props[key])
		if !ok {
			continue
		}
		currency, _ := props["currency"].(string)
		per, _ := props["period"].(string)
		if per == "" {
			per, _ = props["unit"].(string)
		}
		switch {
		case currency == "":
			return &v, per
		case per == "":
			return &v, currency
		}
		return &v, currency + "/" + per
	}
	return nil, ""
}

// number reads a stored property as a number: JSON gives float64, Bolt
// int64 or float64.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	}
	return 0, false
}
