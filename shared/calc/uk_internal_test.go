package calc

import "testing"

// HMRC's NI rounding: to the nearest penny, a halfpenny or less disregarded.
func TestRoundNI(t *testing.T) {
	for in, want := range map[string]string{"0.125": "0.12", "0.1251": "0.13", "0.1249": "0.12", "10": "10", "0.005": "0", "0.0051": "0.01"} {
		if got := roundNI(MustDecimal(in)).String(); got != want {
			t.Errorf("roundNI(%s) = %s, want %s", in, got, want)
		}
	}
	if got := ukPounds(MustDecimal("1234567.5")); got != "£1,234,567.50" {
		t.Errorf("ukPounds = %s", got)
	}
}
