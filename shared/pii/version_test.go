package pii

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"regintel/shared/pii/piicases"
)

var updateFingerprint = flag.Bool("update-fingerprint", false, "record the detectors' fingerprint for the current Version")

const fingerprintFile = "testdata/fingerprint.txt"

// fingerprint is a hash of what the detectors find in a corpus of probes,
// regulatory text and answers; the kinds and spans, not the values.
func fingerprint() string {
	corpus := append(append([]string{}, piicases.Legitimate...), regulatoryTexts...)
	for _, c := range piicases.All() {
		corpus = append(corpus, c.Text, "Write to me at "+c.Text+" today.")
	}
	corpus = append(corpus, benchAnswer(8<<10))
	h := sha256.New()
	for _, text := range corpus {
		fmt.Fprintf(h, "%d:", len(text))
		for _, m := range Find(text) {
			fmt.Fprintf(h, "%s %d %d;", m.Kind, m.Start, m.End)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// A stored turn keeps the Version it was redacted under and is not
// redacted again before it goes to the model; so a change to what the
// detectors find must come with a new Version, or older turns would go out
// without the new detection.
func TestVersionFingerprint(t *testing.T) {
	got := Version + " " + fingerprint()
	if *updateFingerprint {
		if err := os.WriteFile(fingerprintFile, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(fingerprintFile)
	if err != nil {
		t.Fatal(err)
	}
	recordedVersion, recordedPrint, _ := strings.Cut(strings.TrimSpace(string(raw)), " ")
	switch {
	case recordedVersion == Version && recordedPrint != fingerprint():
		t.Fatalf("the detectors find something else than version %s did: change pii.Version, then run go test ./shared/pii -run TestVersionFingerprint -update-fingerprint", Version)
	case recordedVersion != Version:
		t.Fatalf("version %s has no recorded fingerprint: run go test ./shared/pii -run TestVersionFingerprint -update-fingerprint", Version)
	}
}
