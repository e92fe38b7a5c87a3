package eval

import (
	"context"
	"fmt"
	"slices"
	"time"

	"regintel/shared/graph/seeddata"
)

// Options tune a run.
type Options struct {
	// Split names the key's split being scored (SplitDev, SplitHeldout).
	Split string
	// Today is the date a question without one is about (the server's
	// clock's day when it runs).
	Today time.Time
	// Model is true when a real model answers: number accuracy is then
	// scored.
	Model bool
	// Pages are the kept copies of official pages citations are checked
	// against; nil checks against none.
	Pages Pages
	// Dataset, when set, is compared with the key on each question's date.
	Dataset *seeddata.Dataset
}

// Report is a run's scores, per question and overall.
type Report struct {
	Split   string   `json:"split"`
	Today   string   `json:"today"`
	K       int      `json:"k"`
	Model   bool     `json:"model"`
	Summary Summary  `json:"summary"`
	Results []Result `json:"results"`
}

// Run asks every item through c and scores the answers.
func Run(ctx context.Context, c Client, items []Item, o Options) Report {
	rep := Report{Split: o.Split, Today: o.Today.UTC().Format(time.DateOnly), K: K, Model: o.Model}
	for _, it := range items {
		rep.Results = append(rep.Results, c.score(ctx, it, o))
	}
	rep.Summary = summarise(rep.Results)
	return rep
}

// score asks one item and scores what came back.
func (c Client) score(ctx context.Context, it Item, o Options) Result {
	date := it.ExpectedDate(o.Today)
	r := Result{ID: it.ID, Series: it.Series, ExpectedAsOf: date, Want: it.Value, Unit: it.Unit}
	t, err := c.Ask(ctx, it)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	if t.AsOf != nil {
		r.AsOf, r.AsOfSource = t.AsOf.Date, t.AsOf.Source
	}
	if it.AsOf == "" {
		detected := r.AsOf == date
		r.Detected = &detected
	}
	ids := make([]string, 0, len(t.Citations))
	for _, cit := range t.Citations {
		ids = append(ids, cit.NodeID)
	}
	slices.Sort(ids)
	nodes, err := c.Nodes(ctx, slices.Compact(ids))
	if err != nil {
		r.Error = err.Error()
		return r
	}
	scoreTurn(&r, it, t, date, nodes, o)
	return r
}

// scoreTurn sets every score of one answered question.
func scoreTurn(r *Result, it Item, t Turn, date string, nodes map[string]Node, o Options) {
	scoreFacts(r, it, t, date, nodes)
	scoreStale(r, t, date, nodes)
	scoreCitations(r, t, nodes, o.Pages)
	if o.Dataset != nil {
		compareWithDataset(r, it, date, o.Dataset, citedSeries(it, t, nodes))
	}
	if o.Model {
		r.Answer = t.Answer
		ok := numbersCited(t.Answer, t.Citations)
		r.NumbersAccurate = &ok
	}
}

// Summary is the overall scores: each a share of the questions it applies
// to (see Result), with its counts.
type Summary struct {
	Questions        int    `json:"questions"`
	Errors           int    `json:"errors"`
	RecallAtK        Metric `json:"recallAtK"`
	AsOfAccuracy     Metric `json:"asOfAccuracy"`
	NoStaleAsCurrent Metric `json:"noStaleAsCurrent"`
	CitationValidity Metric `json:"citationValidity"`
	AsOfDetection    Metric `json:"asOfDetection"`
	NumberAccuracy   Metric `json:"numberAccuracy"`
	Disagreements    int    `json:"disagreements"`
	Gaps             int    `json:"gaps"`
}

// Metric is Hits out of Of; Rate is their ratio (0 when Of is 0).
type Metric struct {
	Hits int     `json:"hits"`
	Of   int     `json:"of"`
	Rate float64 `json:"rate"`
}

func (m *Metric) add(ok *bool) {
	if ok == nil {
		return
	}
	m.Of++
	if *ok {
		m.Hits++
	}
}

func (m *Metric) close() {
	if m.Of > 0 {
		m.Rate = float64(m.Hits) / float64(m.Of)
	}
}

// summarise totals the results. Recall counts every question, a failed
// turn as a miss (and as a turn that may have shown a stale value);
// citation validity counts citations.
func summarise(results []Result) Summary {
	s := Summary{Questions: len(results)}
	no := false
	for _, r := range results {
		if r.Error != "" {
			s.Errors++
			r.Recalled, r.NoStale = &no, &no
		}
		s.RecallAtK.add(r.Recalled)
		s.AsOfAccuracy.add(r.AsOfAccurate)
		s.NoStaleAsCurrent.add(r.NoStale)
		s.AsOfDetection.add(r.Detected)
		s.NumberAccuracy.add(r.NumbersAccurate)
		s.CitationValidity.Hits += r.ValidCitations
		s.CitationValidity.Of += r.Citations
		s.Disagreements += len(r.Disagreements)
		s.Gaps += len(r.Gaps)
	}
	for _, m := range []*Metric{&s.RecallAtK, &s.AsOfAccuracy, &s.NoStaleAsCurrent, &s.CitationValidity, &s.AsOfDetection, &s.NumberAccuracy} {
		m.close()
	}
	return s
}

// Bar is a minimum a metric must reach.
type Bar struct {
	Name string
	Min  float64
	Of   func(Summary) Metric
}

// HeldoutBars are the thresholds `make eval` holds the heldout split to.
var HeldoutBars = []Bar{
	{"recall@8", 0.85, func(s Summary) Metric { return s.RecallAtK }},
	{"as-of accuracy", 0.95, func(s Summary) Metric { return s.AsOfAccuracy }},
	{"no stale value shown as current", 1.0, func(s Summary) Metric { return s.NoStaleAsCurrent }},
}

// Below lists the bars the report does not meet; a metric measured on no
// question does not meet its bar.
func (rep Report) Below(bars []Bar) []string {
	var out []string
	for _, b := range bars {
		m := b.Of(rep.Summary)
		if m.Of == 0 || m.Rate < b.Min {
			out = append(out, fmt.Sprintf("%s %s %.3f (%d/%d), want at least %.2f", rep.Split, b.Name, m.Rate, m.Hits, m.Of, b.Min))
		}
	}
	return out
}
