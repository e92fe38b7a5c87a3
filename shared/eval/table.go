package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// WriteTable prints the split's overall scores, then one row per question,
// then the key's disagreements with the dataset and the dataset's gaps.
func (rep Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	s := rep.Summary
	fmt.Fprintf(tw, "split %s\tscore\thits/of\n", rep.Split)
	rows := []struct {
		name string
		m    Metric
	}{
		{fmt.Sprintf("fact recall@%d", rep.K), s.RecallAtK},
		{"as-of accuracy", s.AsOfAccuracy},
		{"no stale value shown as current", s.NoStaleAsCurrent},
		{"citation validity", s.CitationValidity},
		{"as-of detection", s.AsOfDetection},
	}
	if rep.Model {
		rows = append(rows, struct {
			name string
			m    Metric
		}{"number accuracy", s.NumberAccuracy})
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%.3f\t%d/%d\n", r.name, r.m.Rate, r.m.Hits, r.m.Of)
	}
	fmt.Fprintf(tw, "\nquestions %d (errors %d), disagreements %d, gaps %d, today %s\n\n", s.Questions, s.Errors, s.Disagreements, s.Gaps, rep.Today)
	fmt.Fprintf(tw, "question\trecall\tas-of\tstale\tdate read\twant date\tgot date\tvalue key / shown\tcitations\tmatched series\n")
	for _, r := range rep.Results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d/%d\t%s\n", r.ID, mark(r.Recalled), mark(r.AsOfAccurate), mark(r.NoStale),
			mark(r.Detected), r.ExpectedAsOf, strings.TrimSpace(r.AsOf+" "+r.AsOfSource), shown(r), r.ValidCitations, r.Citations, strings.Join(r.Matched, " "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if s.Disagreements > 0 {
		fmt.Fprintf(w, "\nFAIL %s: the key and the dataset disagree:\n", rep.Split)
		for _, r := range rep.Results {
			for _, d := range r.Disagreements {
				fmt.Fprintf(w, "  %s\n", d)
			}
		}
	}
	if s.Gaps > 0 {
		fmt.Fprintf(w, "\n%s: the dataset has no value in force (misses):\n", rep.Split)
		for _, r := range rep.Results {
			for _, d := range r.Gaps {
				fmt.Fprintf(w, "  %s\n", d)
			}
		}
	}
	return nil
}

// shown is the value the turn showed against the key's.
func shown(r Result) string {
	if r.Want == nil {
		return "-"
	}
	want := formatValue(*r.Want, r.Unit)
	if r.Given == nil {
		return want + " / -"
	}
	return want + " / " + formatValue(*r.Given, r.Unit)
}

func mark(ok *bool) string {
	switch {
	case ok == nil:
		return "-"
	case *ok:
		return "ok"
	}
	return "MISS"
}

// WriteJSON writes v (a report or several) to path, creating its directory.
func WriteJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(raw, '\n'), 0o644)
}

// WriteJSON writes the report to path, creating its directory.
func (rep Report) WriteJSON(path string) error { return WriteJSON(path, rep) }
