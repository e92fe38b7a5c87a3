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

func TestNumbersCited(t *testing.T) {
	four, four1 := 4.0, 4.1
	cited := []Citation{{NodeID: "a", Value: &four}, {NodeID: "b", Value: &four1}}
	if !numbersCited("It went from 4% to 4.1% on 1 October 2024.", cited) {
		t.Error("cited numbers not recognised")
	}
	if numbersCited("It is 4.2% since 2025.", cited) {
		t.Error("an uncited 4.2 passed")
	}
}
