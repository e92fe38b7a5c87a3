package jurisdiction

import "testing"

func TestKnownAndMembership(t *testing.T) {
	for _, c := range []string{"IE", "ie", " uk ", "EU", "GLOBAL", "de"} {
		if !Known(c) {
			t.Errorf("%q not known", c)
		}
	}
	for _, c := range []string{"", "XX", "IRELAND", "E", "IE;DROP"} {
		if Known(c) {
			t.Errorf("%q known", c)
		}
	}
	if !IsEUMember("ie") || IsEUMember("UK") || IsEUMember("EU") {
		t.Error("EU membership wrong")
	}
}
