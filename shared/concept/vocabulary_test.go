package concept_test

import (
	"encoding/json"
	"os"
	"testing"

	"regintel/shared/concept"
	"regintel/shared/graph/seeddata"
)

// TestVocabularyHoldsEveryKindInUse: the curated dataset's and the offline
// lexicon's domains and kinds are all in the vocabulary.
func TestVocabularyHoldsEveryKindInUse(t *testing.T) {
	ds, err := seeddata.Load()
	if err != nil {
		t.Fatal(err)
	}
	concepts := ds.Concepts
	raw, err := os.ReadFile("../llm/offline/lexicon.json")
	if err != nil {
		t.Fatal(err)
	}
	var lexicon struct{ Concepts []concept.Concept }
	if err := json.Unmarshal(raw, &lexicon); err != nil {
		t.Fatal(err)
	}
	concepts = append(concepts, lexicon.Concepts...)
	if len(concepts) < 20 {
		t.Fatalf("read only %d concepts", len(concepts))
	}
	for _, c := range concepts {
		if !concept.KnownDomain(c.Domain) || !concept.KnownKind(c.Kind) {
			t.Errorf("%s: domain %s or kind %s is not in the vocabulary", c.PrefLabel, c.Domain, c.Kind)
		}
	}
}

func TestKindShapes(t *testing.T) {
	for kind, want := range map[string]bool{
		"VAT": true, "carer support grant": true, "Respite-Care Grant": false, "X": true,
		"1234567-T": false, "FORM_11": true, "KIND_07": true, "CALLBACK_087_123_4567": false, "A_B_C_D_E_F_G": false,
		"PPSN_1234567T": false, "D02_X285": false, "SW1A_1AA": false, "FORM_1_2_3_4": false,
		"JANE ROE EXAMPLE COM": true, // well shaped: allowed only bare, and the guard's text checks run first
	} {
		if got := concept.WellShapedKind(kind); got != want {
			t.Errorf("WellShapedKind(%q) = %v, want %v", kind, got, want)
		}
	}
	if !concept.KnownDomain("vehicle reg") || concept.KnownDomain("astrology") || !concept.KnownKind("Income Tax") {
		t.Error("vocabulary lookups do not read the canonical id form")
	}
}

func TestTermWords(t *testing.T) {
	for w, want := range map[string]bool{"Tax": true, "Carer's": true, "Cáin": true, "Murphy": false, "Mary": false} {
		if got := concept.IsTermWord(w); got != want {
			t.Errorf("IsTermWord(%q) = %v, want %v", w, got, want)
		}
	}
}

// A kind a tenant's model wrote (a name, a disguised address) never reaches
// a log line; vocabulary ids do, whole.
func TestLogIDKeepsOnlyTheVocabulary(t *testing.T) {
	cases := map[string]string{
		"TAX:IE:VAT":                           "TAX:IE:VAT",
		"TAX:IE:VAT:RATE:STANDARD":             "TAX:IE:VAT:RATE:STANDARD",
		"TAX:IE:MARY_BYRNE_FAMILY_TRUST":       "TAX:IE:UNLISTED_KIND",
		"GENERIC:IE:MARY_AT_EXAMPLE_DOT_COM":   "GENERIC:IE:UNLISTED_KIND",
		"ASTROLOGY:IE:VAT":                     "UNLISTED_DOMAIN:IE:VAT",
		"TAX:TWELVE_MAIN_STREET_DUBLIN:VAT":    "TAX:UNLISTED_JURISDICTION:VAT",
		"SEAN_OBRIEN":                          "UNLISTED_KIND",
		"TAX:IE:FOURTEEN_ORCHARD_ROAD:RATE:X1": "TAX:IE:UNLISTED_KIND",
	}
	for in, want := range cases {
		if got := concept.LogID(in); got != want {
			t.Errorf("LogID(%q) = %q, want %q", in, got, want)
		}
	}
}
