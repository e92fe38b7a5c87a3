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

// WriteTable prints the overall scores, then one row per question.
func (rep Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	s := rep.Summary
	fmt.Fprintf(tw, "metric\tscore\thits/of\n")
	rows := []struct {
		name string
		m    Metric
	}{
		{fmt.Sprintf("fact recall@%d", rep.K), s.RecallAtK},
		{"as-of accuracy", s.AsOfAccuracy},
		{"citation validity", s.CitationValidity},
		{"as-of detection", s.AsOfDetection},
	}
	if rep.Model {
		rows = append(rows, struct {
			name string
			m    Metric
		}{"number accuracy", s.NumberAccuracy}, struct {
			name string
			m    Metric
		}{"abstention", s.Abstention})
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%.3f\t%d/%d\n", r.name, r.m.Rate, r.m.Hits, r.m.Of)
	}
	fmt.Fprintf(tw, "\nquestions %d (errors %d), today %s\n\n", s.Questions, s.Errors, rep.Today)
	fmt.Fprintf(tw, "question\trecall\tas-of\tdate\twant\tgot\tcitations\n")
	for _, r := range rep.Results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d/%d\n", r.ID, mark(r.Recalled), mark(r.AsOfAccurate), mark(r.Detected),
			r.ExpectedAsOf, strings.TrimSpace(r.AsOf+" "+r.AsOfSource), r.ValidCitations, r.Citations)
	}
	return tw.Flush()
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

// WriteJSON writes the report to path, creating its directory.
func (rep Report) WriteJSON(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(raw, '\n'), 0o644)
}
