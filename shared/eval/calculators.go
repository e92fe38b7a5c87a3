package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
)

// WorkedExample is one published worked example of a calculator: the
// inputs a source gives and the figures it prints (shared/calc's
// testdata/worked_examples.json, each with its URL).
type WorkedExample struct {
	ID            string            `json:"id"`
	Calculator    string            `json:"calculator"`
	TaxYear       string            `json:"taxYear"`
	AsOf          string            `json:"asOf"`
	Inputs        json.RawMessage   `json:"inputs"`
	Figures       map[string]string `json:"figures"`
	SourceDiffers []struct {
		Line       string `json:"line"`
		Recomputed string `json:"recomputed"`
	} `json:"sourceDiffers"`
}

// LoadWorkedExamples reads the examples file.
func LoadWorkedExamples(path string) ([]WorkedExample, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Examples []WorkedExample `json:"examples"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc.Examples, nil
}

// CalcRow scores one calculator in one year: how many examples came out
// exact to the cent (every published figure, or the recomputation where a
// source's own arithmetic is wrong), and how many of their citations were
// valid on the calculation's date (or, for a year computed pay date by pay
// date, within its year).
type CalcRow struct {
	Calculator     string `json:"calculator"`
	Year           string `json:"year"`
	Examples       int    `json:"examples"`
	Exact          int    `json:"exact"`
	Citations      int    `json:"citations"`
	ValidCitations int    `json:"validCitations"`
}

// CalcAnswer is what POST /calculate answers, as the eval reads it.
type CalcAnswer struct {
	AsOf  string `json:"asOf"`
	Total string `json:"total"`
	Lines []struct {
		Name   string `json:"name"`
		Amount string `json:"amount"`
	} `json:"lines"`
	Citations []Citation `json:"citations"`
}

// Calculate sends one request to POST /calculate, as a user would.
func (c Client) Calculate(ctx context.Context, ex WorkedExample) (CalcAnswer, error) {
	raw, _ := json.Marshal(map[string]any{"calculator": ex.Calculator, "taxYear": ex.TaxYear, "asOf": ex.AsOf, "inputs": ex.Inputs})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "/calculate", bytes.NewReader(raw))
	if err != nil {
		return CalcAnswer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	rec := c.do(req)
	var out CalcAnswer
	if rec.Code != http.StatusOK {
		return out, fmt.Errorf("POST /calculate: %d %s", rec.Code, strings.TrimSpace(rec.Body.String()))
	}
	return out, json.Unmarshal(rec.Body.Bytes(), &out)
}

// ScoreCalculators runs every example through POST /calculate and scores
// it per calculator and year. An example that fails to run counts as not
// exact.
func ScoreCalculators(ctx context.Context, c Client, examples []WorkedExample) []CalcRow {
	rows := map[string]*CalcRow{}
	for _, ex := range examples {
		ans, err := c.Calculate(ctx, ex)
		year := ans.AsOf
		if len(year) >= 4 {
			year = year[:4]
		} else {
			year = "?"
		}
		key := ex.Calculator + " " + year
		r, ok := rows[key]
		if !ok {
			r = &CalcRow{Calculator: ex.Calculator, Year: year}
			rows[key] = r
		}
		r.Examples++
		if err != nil {
			continue
		}
		if exactExample(ex, ans) {
			r.Exact++
		}
		for _, cit := range ans.Citations {
			r.Citations++
			if citedWithin(cit, ans.AsOf) {
				r.ValidCitations++
			}
		}
	}
	out := make([]CalcRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Calculator+out[i].Year < out[j].Calculator+out[j].Year
	})
	return out
}

func exactExample(ex WorkedExample, ans CalcAnswer) bool {
	got := map[string]string{"total": ans.Total}
	for _, l := range ans.Lines {
		got[l.Name] = l.Amount
	}
	for name, want := range ex.Figures {
		if !recomputed(ex, name) && got[name] != want {
			return false
		}
	}
	for _, d := range ex.SourceDiffers {
		if got[d.Line] != d.Recomputed {
			return false
		}
	}
	return true
}

// recomputed reports whether the source's own figure for line is recorded
// as wrong (its recomputation is checked instead).
func recomputed(ex WorkedExample, line string) bool {
	for _, d := range ex.SourceDiffers {
		if d.Line == line {
			return true
		}
	}
	return false
}

// citedWithin: the cited value is in force on date, or, for a figure
// computed pay date by pay date, at some point of date's year.
func citedWithin(c Citation, date string) bool {
	from, to := "", "9999-12-31"
	if c.ValidFrom != nil {
		from = *c.ValidFrom
	}
	if c.ValidTo != nil {
		to = *c.ValidTo
	}
	if from <= date && date <= to {
		return true
	}
	if len(date) < 4 {
		return false
	}
	yearStart, yearEnd := date[:4]+"-01-01", date[:4]+"-12-31"
	return from <= yearEnd && to >= yearStart
}

// WriteCalcTable prints the calculator section of the report.
func WriteCalcTable(w io.Writer, rows []CalcRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "calculator\tyear\texact\tcitations valid on the date")
	var ex, exact, cits, valid int
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%d/%d\n", r.Calculator, r.Year, r.Exact, r.Examples, r.ValidCitations, r.Citations)
		ex, exact, cits, valid = ex+r.Examples, exact+r.Exact, cits+r.Citations, valid+r.ValidCitations
	}
	fmt.Fprintf(tw, "all\t\t%d/%d\t%d/%d\n", exact, ex, valid, cits)
	return tw.Flush()
}
