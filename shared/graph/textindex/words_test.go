package textindex

import (
	"slices"
	"testing"
)

func TestStemJoinsInflectedForms(t *testing.T) {
	for word, want := range map[string]string{
		"charges": "charge", "charge": "charge",
		"pensions": "pension", "allowances": "allowance",
		"taxes": "tax", "levies": "levy", "reliefs": "relief",
		"businesses": "business", "business": "business", "bonus": "bonus", "basis": "basis",
		"heating": "heat", "registered": "register", "paying": "paying",
		"VAT": "vat", "USC": "usc", "NICs": "nic",
	} {
		if got := Stem(word); got != want {
			t.Errorf("Stem(%q) = %q, want %q", word, got, want)
		}
	}
}

func TestWordsDropPossessivesStopWordsAndNumbers(t *testing.T) {
	for text, want := range map[string][]string{
		"What are the employer's PRSI charges in 2024?": {"employer", "prsi", "charge"},
		"employers’ contributions, 13.5%":               {"employer", "contribution"},
		"Tax on heating oil and taxes on petrol":        {"tax", "heat", "oil", "petrol"},
		"is it":                                         nil,
	} {
		if got := Words(text); !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestExpandAddsOfficialScopeWords(t *testing.T) {
	got := Expand(Words("a night in a hotel"))
	if !slices.Contains(got, "accommodation") || !slices.Contains(got, "hotel") {
		t.Errorf("Expand = %q, want the hotel's official category (accommodation) added", got)
	}
	if got := Expand(Words("a bag of peat")); len(got) != 2 {
		t.Errorf("Expand added words to a question naming no scope word: %q", got)
	}
}
