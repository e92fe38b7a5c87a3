package eval

import (
	"slices"
	"testing"
)

func TestAnswerNumbersLeaveDatesOut(t *testing.T) {
	for answer, want := range map[string][]float64{
		"The rate is 4.1% from 1 October 2024 (it was 4% before).": {4.1, 4},
		"In 2024/25 the allowance is £12,570 a year.":              {12570},
		"On October 1st, 2025 it rose to 4.2%.":                    {4.2},
		"USC of 3% applies between €28,700 and €70,044.":           {3, 28700, 70044},
		"I don't have a verified figure for that.":                 nil,
	} {
		if got := answerNumbers(answer); !slices.Equal(got, want) {
			t.Errorf("%q: got %v, want %v", answer, got, want)
		}
	}
}

func TestNumbersCitedAndDeclined(t *testing.T) {
	four, four1 := 4.0, 4.1
	cited := []Citation{{NodeID: "a", Value: &four}, {NodeID: "b", Value: &four1}}
	if !numbersCited("It went from 4% to 4.1% on 1 October 2024.", cited) {
		t.Error("cited numbers not recognised")
	}
	if numbersCited("It is 4.2% since 2025.", cited) {
		t.Error("an uncited 4.2 passed")
	}
	if !declined("I don't have that rate in the rules graph.") || declined("I can't be sure, but it is 1%.") || declined("It is 1%.") {
		t.Error("declined misreads an answer")
	}
}

func TestScoreFactsWantsTheValueValidOnTheDate(t *testing.T) {
	s := func(v string) *string { return &v }
	four, four1 := 4.0, 4.1
	want := 4.0
	it := Item{Series: "PRSI", Value: &want}
	turn := Turn{Citations: []Citation{
		{NodeID: "PRSI:2024-10-01", Value: &four1, ValidFrom: s("2024-10-01"), ValidTo: s("2025-09-30")},
		{NodeID: "PRSI:UNDATED", Value: &four, ValidTo: s("2024-09-30")},
	}}
	for date, accurate := range map[string]bool{"2024-09-30": true, "2024-10-01": false, "2026-01-01": false} {
		var r Result
		scoreFacts(&r, it, turn, date, nil)
		if r.Recalled == nil || !*r.Recalled || r.AsOfAccurate == nil || *r.AsOfAccurate != accurate {
			t.Errorf("%s: recalled %v accurate %v, want accurate %v", date, r.Recalled, r.AsOfAccurate, accurate)
		}
	}
	var r Result
	scoreFacts(&r, Item{Series: "USC", Value: &want}, turn, "2024-09-30", nil)
	if r.Recalled == nil || *r.Recalled || r.AsOfAccurate != nil {
		t.Errorf("another series counted as recalled: %+v", r)
	}
}
