package api_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"regintel/api"
	"regintel/shared/calc"
)

// POST /calculate's request states each calculator's inputs as the
// calculator's InputSchema gives them: one variant per calculator,
// discriminated by calculator, whose inputs are (or start with, in an
// allOf) that schema. A calculator added, removed or changed without the
// document fails here.
func TestCalculateInputsMatchCalculators(t *testing.T) {
	raw, _ := api.JSON()
	var doc struct {
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	schemas := doc.Components.Schemas
	deref := func(ref any) map[string]any {
		s, _ := ref.(string)
		name, ok := strings.CutPrefix(s, "#/components/schemas/")
		if !ok || schemas[name] == nil {
			t.Fatalf("reference %v is not a schema of the document", ref)
		}
		return schemas[name]
	}
	request := schemas["CalculateRequest"]
	discriminator, _ := request["discriminator"].(map[string]any)
	mapping, _ := discriminator["mapping"].(map[string]any)
	if discriminator["propertyName"] != "calculator" {
		t.Fatalf("CalculateRequest is not discriminated by calculator: %v", discriminator)
	}
	var names []string
	for _, c := range calc.All() {
		names = append(names, c.Name())
		variant := deref(mapping[c.Name()])
		props, _ := variant["properties"].(map[string]any)
		if got := props["calculator"].(map[string]any)["const"]; got != c.Name() {
			t.Errorf("%s: the variant's calculator is %v", c.Name(), got)
		}
		inputs, _ := props["inputs"].(map[string]any)
		ref := inputs["$ref"]
		if all, ok := inputs["allOf"].([]any); ok && len(all) > 0 {
			ref = all[0].(map[string]any)["$ref"]
		}
		if got, want := normalized(t, deref(ref)), normalized(t, c.InputSchema()); !reflect.DeepEqual(got, want) {
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(want)
			t.Errorf("%s: the document's inputs\n%s\ndiffer from InputSchema()\n%s", c.Name(), gotJSON, wantJSON)
		}
	}
	var documented []string
	for name := range mapping {
		documented = append(documented, name)
	}
	slices.Sort(documented)
	if !slices.Equal(documented, names) {
		t.Errorf("the document names calculators %v, the registry %v", documented, names)
	}
	if one, _ := request["oneOf"].([]any); len(one) != len(names) {
		t.Errorf("CalculateRequest has %d variants for %d calculators", len(one), len(names))
	}
}

// normalized is v as JSON reads it back, so Go maps and the document's
// parsed JSON compare by value.
func normalized(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
