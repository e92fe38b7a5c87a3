package write

import "testing"

// A remembered verdict is the same the second time, and each caller gets
// its own rejection to fill in.
func TestCheckedTextsAreRemembered(t *testing.T) {
	first := checkConceptText("pref_label", "Mary Murphy")
	if first == nil || first.Reason != ReasonPIIValue {
		t.Fatalf("first check: %v", first)
	}
	first.ConceptID = "TAX:IE:VAT"
	second := checkConceptText("pref_label", "Mary Murphy")
	if second == nil || second.Reason != ReasonPIIValue || second.ConceptID != "" || second == first {
		t.Fatalf("second check: %+v", second)
	}
	for range 2 { // checked, then remembered
		if rej := checkConceptText("pref_label", "Value-Added Tax"); rej != nil {
			t.Fatalf("a clean label was refused: %v", rej)
		}
	}
}
