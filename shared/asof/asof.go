// Package asof chooses the date a turn's answer is about: the request's
// asOf, else a date the question names, else today. Grounding returns the
// facts valid on that date.
package asof

import (
	"errors"
	"strings"
	"time"
)

// Where a turn's as-of date came from.
const (
	SourceRequest  = "request"
	SourceQuestion = "question"
	SourceToday    = "today"
)

// DateLayout is the ISO calendar date a client sends and metadata carries.
const DateLayout = "2006-01-02"

// Earliest and latest years a date may name: outside them a number is not
// read as a year, and a requested date is refused.
const (
	MinYear = 1990
	MaxYear = 2100
)

// AsOf is a turn's as-of date, at midnight UTC, with where it came from
// and, for a date read from the question, the words that named it.
type AsOf struct {
	Date   time.Time
	Source string
	Phrase string
	// End is the last date of a range the question names ("between 2023
	// and 2025"), zero otherwise; the turn grounds both Date and End.
	End time.Time
}

// String is the date as an ISO date.
func (a AsOf) String() string { return a.Date.Format(DateLayout) }

// ErrBadDate is returned for a requested date that is not an ISO date
// between MinYear and MaxYear.
var ErrBadDate = errors.New("asOf must be an ISO date (YYYY-MM-DD) between 1990 and 2100")

// ParseDate reads a requested as-of date (YYYY-MM-DD).
func ParseDate(s string) (time.Time, error) {
	d, err := time.Parse(DateLayout, strings.TrimSpace(s))
	if err != nil || d.Year() < MinYear || d.Year() > MaxYear {
		return time.Time{}, ErrBadDate
	}
	return d, nil
}

// Choose returns the turn's as-of date: requested when it is set (not
// zero), else the first date the question names, else today. today is
// the clock's time; its calendar day in UTC is used.
func Choose(requested time.Time, question string, today time.Time) AsOf {
	return ChooseIn(requested, question, today, nil)
}

// ChooseIn is Choose for a conversation in jurisdictions, which say whose
// tax year the question's "last tax year" is (FromQuestionIn).
func ChooseIn(requested time.Time, question string, today time.Time, jurisdictions []string) AsOf {
	if !requested.IsZero() {
		return AsOf{Date: day(requested), Source: SourceRequest}
	}
	if found, ok := FromQuestionIn(question, today, jurisdictions); ok {
		return found
	}
	return AsOf{Date: day(today), Source: SourceToday}
}

// day is t's calendar day in UTC, at midnight.
func day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
