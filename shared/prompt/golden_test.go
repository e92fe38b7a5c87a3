package prompt

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/*.golden from the current renderer")

// renderEmbeddedSheet renders every section of the embedded sheet with
// every sample (see sheetData and messageData), as one text.
func renderEmbeddedSheet(t *testing.T) string {
	t.Helper()
	s := DefaultSheet()
	var b strings.Builder
	for i, d := range append(sheetData(), benchmarkData()) {
		system, err := s.System(d)
		if err != nil {
			t.Fatalf("system %d: %v", i, err)
		}
		turn, err := s.TurnContext(d)
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		fmt.Fprintf(&b, "=== system %d\n%s\n=== turn %d\n%s\n", i, Join(system), i, Join(turn))
	}
	messages := messageData()
	sections := make([]string, 0, len(messages))
	for section := range messages {
		sections = append(sections, section)
	}
	slices.Sort(sections)
	for _, section := range sections {
		for i, d := range messages[section] {
			text, err := s.execute(section, d)
			if err != nil {
				t.Fatalf("%s %d: %v", section, i, err)
			}
			fmt.Fprintf(&b, "=== %s %d\n%s\n", section, i, text)
		}
	}
	return b.String()
}

// The prompts the embedded sheet renders are byte for byte those of the
// golden file, which the sheet's earlier renderer wrote: a change of
// renderer or of wording shows here as a diff to review.
func TestEmbeddedSheetRendersTheGoldenPrompts(t *testing.T) {
	got := renderEmbeddedSheet(t)
	path := filepath.Join("testdata", "embedded_sheet.golden")
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("line %d differs from %s:\n got %q\nwant %q", i+1, path, gl[i], wl[i])
			}
		}
		t.Fatalf("%d lines, %s has %d", len(gl), path, len(wl))
	}
}
