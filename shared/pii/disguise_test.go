package pii

import (
	"slices"
	"testing"

	"regintel/shared/pii/piicases"
)

// TestRedactCatchesEveryProbe: each probe, disguised or of a kind added
// later, is replaced by its typed marker and leaves no trace of its value.
func TestRedactCatchesEveryProbe(t *testing.T) {
	for _, tc := range piicases.All() {
		t.Run(tc.Name, func(t *testing.T) {
			text := "Please note my details: " + tc.Text + " thanks."
			out, kinds := Redact(text)
			if tc.Leaked(out) {
				t.Fatalf("Redact(%q) = %q: the value is still there", text, out)
			}
			if !slices.Contains(kinds, Kind(tc.Kind)) {
				t.Errorf("Redact(%q) found %v, want %s", text, kinds, tc.Kind)
			}
		})
	}
}

func TestRedactLeavesRegulatoryTextAlone(t *testing.T) {
	for _, text := range piicases.Legitimate {
		if ms := Find(text); len(ms) != 0 {
			t.Errorf("Find(%q) = %v", text, ms)
		}
	}
}

// TestFoldReadsDisguisesAsPlainText pins the folding rules one by one.
func TestFoldReadsDisguisesAsPlainText(t *testing.T) {
	for in, want := range map[string]string{
		"0\u200b87\u00ad1":      "0871", // zero-width space, soft hyphen
		"٠٨٧ ۱۲۳ १२३ ১২৩":       "087 123 123 123",
		"０８７＠ｅｘ":                "087@ex",
		"jаne rοe":              "jane roe", // Cyrillic а, Greek ο
		"1\u00a02\u20093":       "1 2 3",
		"4111–1111—1111":        "4111-1111-1111",
		"Cáin Bhreisluacha":     "Cáin Bhreisluacha",
		"ДЖ":                    "ДЖ", // no Latin twin: left as it is
		"e\u0301":               "e",  // a combining mark alone is dropped
		"plain ASCII: 23% 2024": "plain ASCII: 23% 2024",
	} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRedactReplacesTheOriginalSpan: the marker replaces the disguised
// characters themselves, zero-width ones included, and nothing around them.
func TestRedactReplacesTheOriginalSpan(t *testing.T) {
	for in, want := range map[string]string{
		"Úna Kelly called":                  "[REDACTED:PERSON_NAME] called",
		"I live at 12 Main Street, Athlone": "I live at [REDACTED:ADDRESS], Athlone",
		"post it to Flat 4B please":         "post it to [REDACTED:ADDRESS] please",
		"Dr. Aoife Byrne signed it":         "[REDACTED:PERSON_NAME] signed it",
		"passport no. 123456789":            "passport no. [REDACTED:PASSPORT]",
		"born on 3rd May 1990":              "born on [REDACTED:DATE_OF_BIRTH]",
	} {
		if out, _ := Redact(in); out != want {
			t.Errorf("Redact(%q) = %q, want %q", in, out, want)
		}
	}
	out, _ := Redact("call ٠٨٧ ١٢٣ ٤٥٦٧ now")
	if out != "call [REDACTED:PHONE] now" {
		t.Errorf("got %q", out)
	}
	out, _ = Redact("PPSN 1234\u200b567/T, thanks")
	if out != "PPSN [REDACTED:PPSN], thanks" {
		t.Errorf("got %q", out)
	}
}
