package chat

import (
	"fmt"
	"testing"
)

// A fact's values read as fmt's %v would write them, whatever their type.
func TestRenderValuesWritesEachValueAsV(t *testing.T) {
	for _, v := range []any{"standard", int64(40000), 13.5, 9.0, 1e6, 0.0001, 1e21, 0.135, true, []string{"a", "b"}} {
		if got, want := renderValues(map[string]any{"p": v}), fmt.Sprintf("p: %v", v); got != want {
			t.Errorf("%T %v: got %q, want %q", v, v, got, want)
		}
	}
	if got := renderValues(map[string]any{"b": "2", "a": int64(1), "domain": "TAX"}); got != "a: 1; b: 2" {
		t.Errorf("order and the concept's own keys: %q", got)
	}
}
