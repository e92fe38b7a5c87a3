package chat

import "testing"

func TestSafeEndHoldsBackWhatCouldGrowIntoPII(t *testing.T) {
	cases := map[string]string{
		"Call the office on 087 123":       "Call the office on ",
		"Call the office on 087 123 4567 ": "Call the office on ",
		"Call 087 123 4567 to check":       "Call 087 123 4567 to ",
		"Write to jane.do":                 "Write to ",
		"Pay to IE29 AIBK 9311":            "Pay to ",
		"nothing held":                     "nothing ",
		"word":                             "",
	}
	for text, want := range cases {
		if got := text[:safeEnd(text)]; got != want {
			t.Errorf("safeEnd(%q) keeps %q, want %q", text, got, want)
		}
	}
}
