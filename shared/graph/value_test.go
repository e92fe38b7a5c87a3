package graph_test

import (
	"testing"

	"regintel/shared/graph"
)

func TestFactValueAndUnit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props map[string]any
		value float64
		unit  string
	}{
		{"percent from JSON", map[string]any{"percent": 4.1, "band": "class_a_employee"}, 4.1, "%"},
		{"percent from Bolt", map[string]any{"percent": int64(23)}, 23, "%"},
		{"band with bounds", map[string]any{"percent": 3.0, "currency": "EUR", "period": "year", "lowerAmount": 28700.0}, 3, "%"},
		{"weekly amount", map[string]any{"amount": 299.3, "currency": "EUR", "period": "week"}, 299.3, "EUR/week"},
		{"per tonne", map[string]any{"amount": 48.5, "currency": "EUR", "unit": "tonne_co2"}, 48.5, "EUR/tonne_co2"},
		{"bare amount", map[string]any{"amount": int64(1270), "currency": "EUR"}, 1270, "EUR"},
	} {
		v, unit := graph.ValueOf(tc.props)
		if v == nil || *v != tc.value || unit != tc.unit {
			t.Errorf("%s: got %v %q, want %v %q", tc.name, v, unit, tc.value, tc.unit)
		}
	}
	if v, unit := graph.ValueOf(map[string]any{"deadline": "31 October"}); v != nil || unit != "" {
		t.Errorf("a fact without a number got %v %q", *v, unit)
	}
}
