package chat

import (
	"fmt"
	"slices"
	"testing"

	"regintel/shared/graph"
)

// vrtBands are nineteen CO2 bands in node order, as the graph returns them.
func vrtBands() []graph.Fact {
	var facts []graph.Fact
	for lower := 0; lower < 190; lower += 10 {
		facts = append(facts, graph.Fact{
			NodeID:     fmt.Sprintf("BAND:%03d", lower),
			Properties: map[string]any{"lower_amount": int64(lower), "upper_amount": float64(lower + 10)},
		})
	}
	return facts
}

func keptIDs(found []graph.GroundedConcept) []string {
	var ids []string
	for _, f := range found[0].Facts {
		ids = append(ids, f.NodeID)
	}
	return ids
}

func TestFocusPutsTheBandTheQuestionNamesFirst(t *testing.T) {
	for _, tc := range []struct {
		question string
		first    []string
	}{
		{"VRT on a car emitting 175 g/km in 2025?", []string{"BAND:170"}},
		{"VRT at 150g/km", []string{"BAND:140"}},
		{"a band edge: 80 g/km", []string{"BAND:070"}},
		{"zero emission, 0 g/km", []string{"BAND:000"}},
		{"two cars, 12.5 and 185", []string{"BAND:010", "BAND:180"}},
	} {
		got := keptIDs(focusFacts([]graph.GroundedConcept{{Facts: vrtBands()}}, tc.question, 8))
		if len(got) != 8 || !slices.Equal(got[:len(tc.first)], tc.first) {
			t.Errorf("%q kept %v, want %v first", tc.question, got, tc.first)
		}
	}
}

func TestFocusKeepsTheGraphOrderWhenNoBandMatches(t *testing.T) {
	want := keptIDs([]graph.GroundedConcept{{Facts: vrtBands()[:8]}})
	for _, question := range []string{"What is VRT?", "VRT in 2023", "VRT on a 500 g/km car"} {
		got := keptIDs(focusFacts([]graph.GroundedConcept{{Facts: vrtBands()}}, question, 8))
		if !slices.Equal(got, want) {
			t.Errorf("%q kept %v, want the first eight %v", question, got, want)
		}
	}
}

func TestNumbersInReadsAmountsNotYears(t *testing.T) {
	got := numbersIn("In 2024 I earned €50,000 and 1,999.50 more, at 13.5% from 1 May, tax year 2024/25")
	want := []float64{50000, 1999.5, 13.5, 1, 25}
	if !slices.Equal(got, want) {
		t.Errorf("numbersIn = %v, want %v", got, want)
	}
}

func TestAnOpenBandHoldsEverythingAboveIt(t *testing.T) {
	open := graph.Fact{Properties: map[string]any{"lower_amount": float64(190)}}
	if !bandHolds(open, []float64{250}) || bandHolds(open, []float64{190}) || bandHolds(graph.Fact{Properties: map[string]any{"percent": 23.0}}, []float64{23}) {
		t.Error("an open band holds what is above its lower bound only, and a fact without bounds holds nothing")
	}
}

// Scoped rates of one concept, in the graph's order: the general rate
// first, as a question naming no scope gets them.
func scopedRates() []graph.Fact {
	return []graph.Fact{
		{NodeID: "STANDARD", Label: "Sales tax standard rate", Properties: map[string]any{"percent": 20.0}},
		{NodeID: "LODGING", Label: "Sales tax rate on short stays", Properties: map[string]any{"percent": 10.0, "applies_to": "accommodation"}},
		{NodeID: "FOOD", Label: "Sales tax rate on restaurant and catering services", Properties: map[string]any{"percent": 8.0, "applies_to": "restaurant_catering"}},
		{NodeID: "ROAD", Label: "Levy on petrol and diesel", Properties: map[string]any{"amount": 60.0, "applies_to": "auto_fuels"}},
		{NodeID: "HOME", Label: "Levy on other fuels (heating oil, coal)", Properties: map[string]any{"amount": 55.0, "applies_to": "other_fuels"}},
	}
}

func TestFocusPutsTheRateOfTheScopeTheQuestionNamesFirst(t *testing.T) {
	for question, first := range map[string]string{
		"What sales tax is added to a hotel bill for two nights?": "LODGING",
		"sales tax on a restaurant meal":                          "FOOD",
		"tax on a takeaway dinner":                                "FOOD",
		"how much levy on a litre of petrol":                      "ROAD",
		"the levy on kerosene for the boiler":                     "HOME",
		"the levy on heating oil":                                 "HOME",
		"what is the standard sales tax":                          "STANDARD",
	} {
		got := keptIDs(focusFacts([]graph.GroundedConcept{{Facts: scopedRates()}}, question, 8))
		if got[0] != first {
			t.Errorf("%q: order %v, want %s first", question, got, first)
		}
	}
	if got := keptIDs(focusFacts([]graph.GroundedConcept{{Facts: scopedRates()}}, "what are the rates?", 8)); got[0] != "STANDARD" || got[4] != "HOME" {
		t.Errorf("a question naming no scope reordered the facts: %v", got)
	}
}
