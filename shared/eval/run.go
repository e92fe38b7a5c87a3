package eval

import (
	"context"
	"slices"
	"time"
)

// Options tune a run.
type Options struct {
	// Today is the date a question without one is about (the server's
	// clock's day when it runs).
	Today time.Time
	// Model is true when a real model answers: number accuracy and
	// abstention are then scored.
	Model bool
}

// Report is a run's scores, per question and overall.
type Report struct {
	Today   string   `json:"today"`
	K       int      `json:"k"`
	Model   bool     `json:"model"`
	Summary Summary  `json:"summary"`
	Results []Result `json:"results"`
}

// Run asks every item through c and scores the answers.
func Run(ctx context.Context, c Client, items []Item, o Options) Report {
	rep := Report{Today: o.Today.UTC().Format(time.DateOnly), K: K, Model: o.Model}
	for _, it := range items {
		rep.Results = append(rep.Results, c.score(ctx, it, o))
	}
	rep.Summary = summarise(items, rep.Results)
	return rep
}

// score asks one item and scores what came back.
func (c Client) score(ctx context.Context, it Item, o Options) Result {
	date := it.ExpectedDate(o.Today)
	r := Result{ID: it.ID, Series: it.Series, ExpectedAsOf: date}
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
	if it.Answerable() {
		scoreFacts(&r, it, t, date, nodes)
	}
	scoreCitations(&r, t, nodes)
	if o.Model {
		r.Answer = t.Answer
		if it.Answerable() {
			ok := numbersCited(t.Answer, t.Citations)
			r.NumbersAccurate = &ok
		} else {
			ok := declined(t.Answer)
			r.Abstained = &ok
		}
	}
	return r
}

// Summary is the overall scores: each a share of the questions it applies
// to (see Result), with its counts.
type Summary struct {
	Questions        int    `json:"questions"`
	Errors           int    `json:"errors"`
	RecallAtK        Metric `json:"recallAtK"`
	AsOfAccuracy     Metric `json:"asOfAccuracy"`
	CitationValidity Metric `json:"citationValidity"`
	AsOfDetection    Metric `json:"asOfDetection"`
	NumberAccuracy   Metric `json:"numberAccuracy"`
	Abstention       Metric `json:"abstention"`
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

// summarise totals the results. Recall counts every answerable question,
// a failed turn as a miss; citation validity counts citations.
func summarise(items []Item, results []Result) Summary {
	s := Summary{Questions: len(results)}
	no := false
	for i, r := range results {
		if r.Error != "" {
			s.Errors++
			if items[i].Answerable() && r.Recalled == nil {
				r.Recalled = &no
			}
		}
		s.RecallAtK.add(r.Recalled)
		s.AsOfAccuracy.add(r.AsOfAccurate)
		s.AsOfDetection.add(r.Detected)
		s.NumberAccuracy.add(r.NumbersAccurate)
		s.Abstention.add(r.Abstained)
		s.CitationValidity.Hits += r.ValidCitations
		s.CitationValidity.Of += r.Citations
	}
	for _, m := range []*Metric{&s.RecallAtK, &s.AsOfAccuracy, &s.CitationValidity, &s.AsOfDetection, &s.NumberAccuracy, &s.Abstention} {
		m.close()
	}
	return s
}
