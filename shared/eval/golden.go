// Package eval measures answer quality on a golden set of questions,
// through the real chat route: which facts reached the model, whether they
// were the ones valid on the question's date, whether every citation
// resolves to an official graph node, and whether the date was read right.
// With a real model it also checks the answer's numbers and abstentions.
// Nothing is graded by a model.
package eval

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"time"
)

//go:embed testdata/golden.json
var goldenJSON []byte

// Item is one golden question.
type Item struct {
	ID            string   `json:"id"`
	Question      string   `json:"question"`
	Jurisdictions []string `json:"jurisdictions"`
	// AsOf, when set, is sent as the request's asOf.
	AsOf string `json:"asOf,omitempty"`
	// ExpectedAsOf is the date the turn should be about: an ISO date, or
	// "today" for a question that names none.
	ExpectedAsOf string `json:"expectedAsOf"`
	// Series and Value are the fact that answers the question and its
	// value on ExpectedAsOf; absent for a question the graph cannot answer.
	Series  string   `json:"series,omitempty"`
	Value   *float64 `json:"value,omitempty"`
	Abstain bool     `json:"abstain,omitempty"`
}

// Today is the value of ExpectedAsOf for a question without a date.
const Today = "today"

// ExpectedDate is the ISO date the turn should be about, given today.
func (it Item) ExpectedDate(today time.Time) string {
	if it.ExpectedAsOf == Today {
		return today.UTC().Format(time.DateOnly)
	}
	return it.ExpectedAsOf
}

// Answerable is true for a question the graph holds the answer to.
func (it Item) Answerable() bool { return !it.Abstain }

// Golden loads the golden set kept with the package.
func Golden() ([]Item, error) { return ParseGolden(goldenJSON) }

// ParseGolden decodes and checks a golden set: ids unique, dates ISO, and
// each item either answerable (series and value) or to be declined.
func ParseGolden(data []byte) ([]Item, error) {
	var doc struct {
		Items []Item `json:"items"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("golden set: %w", err)
	}
	seen := map[string]bool{}
	for _, it := range doc.Items {
		if err := it.check(); err != nil {
			return nil, fmt.Errorf("golden set: item %q: %w", it.ID, err)
		}
		if seen[it.ID] {
			return nil, fmt.Errorf("golden set: item %q appears twice", it.ID)
		}
		seen[it.ID] = true
	}
	return doc.Items, nil
}

func (it Item) check() error {
	isDate := func(s string) bool { _, err := time.Parse(time.DateOnly, s); return err == nil }
	switch {
	case it.ID == "" || it.Question == "":
		return fmt.Errorf("id and question are required")
	case it.ExpectedAsOf != Today && !isDate(it.ExpectedAsOf):
		return fmt.Errorf("expectedAsOf %q is neither %q nor an ISO date", it.ExpectedAsOf, Today)
	case it.AsOf != "" && it.AsOf != it.ExpectedAsOf:
		return fmt.Errorf("a requested asOf is the expected date")
	case it.Abstain && (it.Series != "" || it.Value != nil):
		return fmt.Errorf("a question to decline has no series or value")
	case !it.Abstain && (it.Series == "" || it.Value == nil):
		return fmt.Errorf("series and value are required unless abstain is set")
	}
	return nil
}
