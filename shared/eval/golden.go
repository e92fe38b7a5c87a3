// Package eval measures answer quality on an answer key written from the
// official sources, through the real chat route: whether the value the key
// read from its source reached the model as in force on the question's
// date, whether a value that had ended was shown as current, whether every
// citation is its fact's own official source (and, where a copy of the page
// is kept, states the value), and whether the date was read right. With a
// real model it also checks the answer's numbers. Nothing is graded by a
// model, and the key is never derived from the dataset: where the two
// differ, the run reports both values and both sources.
package eval

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"regintel/shared/graph/seeddata"
)

// The key has two splits. dev may guide aliases and matching rules;
// heldout was written from the official pages by someone who had not read
// the dataset's labels, and is never used to add an alias. The thresholds
// apply to heldout.
var (
	//go:embed testdata/golden.json
	devJSON []byte
	//go:embed testdata/heldout.json
	heldoutJSON []byte
)

// Split names.
const (
	SplitDev     = "dev"
	SplitHeldout = "heldout"
)

// Item is one question of the key with the value its official source
// states for the asked date.
type Item struct {
	ID            string   `json:"id"`
	Question      string   `json:"question"`
	Jurisdictions []string `json:"jurisdictions"`
	// AsOf, when set, is sent as the request's asOf.
	AsOf string `json:"asOf,omitempty"`
	// ExpectedAsOf is the date the turn should be about: an ISO date,
	// "today" for a question that names none, or today less some years,
	// months or days ("today-2y") for a relative phrase.
	ExpectedAsOf string `json:"expectedAsOf"`
	// Value and Unit are what SourceURL states for the expected date, read
	// on ReadOn. Unit is "%" (or "percent"), a currency ("EUR"), or a
	// currency per period or unit ("EUR/week", "EUR per tonne CO2").
	Value     *float64 `json:"value"`
	Unit      string   `json:"unit"`
	SourceURL string   `json:"sourceUrl"`
	ReadOn    string   `json:"readOn"`
	// Series is an optional hint naming the dataset series that should
	// carry the value; a turn that cites no value of it misses, and the
	// run compares the key with the series. Questions in the dataset's
	// gaps may name a series the dataset lacks.
	Series string `json:"series,omitempty"`
	Note   string `json:"note,omitempty"`
}

// Today is the value of ExpectedAsOf for a question without a date.
const Today = "today"

var relativeToday = regexp.MustCompile(`^today-(\d+)([ymd])$`)

// ExpectedDate is the ISO date the turn should be about, given today.
func (it Item) ExpectedDate(today time.Time) string {
	day := today.UTC()
	if it.ExpectedAsOf == Today {
		return day.Format(time.DateOnly)
	}
	if m := relativeToday.FindStringSubmatch(it.ExpectedAsOf); m != nil {
		n, _ := strconv.Atoi(m[1])
		switch m[2] {
		case "y":
			day = day.AddDate(-n, 0, 0)
		case "m":
			day = day.AddDate(0, -n, 0)
		default:
			day = day.AddDate(0, 0, -n)
		}
		return day.Format(time.DateOnly)
	}
	return it.ExpectedAsOf
}

// Dev loads the dev split kept with the package.
func Dev() ([]Item, error) { return ParseKey(devJSON) }

// Heldout loads the heldout split kept with the package.
func Heldout() ([]Item, error) { return ParseKey(heldoutJSON) }

// Golden is the dev split, the one tests and matching work may use.
func Golden() ([]Item, error) { return Dev() }

// keyDocument is one split as written: its items and how it was made.
type keyDocument struct {
	Split          string   `json:"split"`
	WrittenOn      string   `json:"writtenOn"`
	Method         string   `json:"method"`
	DateConvention string   `json:"dateConvention"`
	Gaps           []string `json:"gaps"`
	Items          []Item   `json:"items"`
}

// ParseKey decodes and checks one split: ids unique, dates ISO, and every
// item with a value, a unit and the official page it was read from.
func ParseKey(data []byte) ([]Item, error) {
	var doc keyDocument
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("answer key: %w", err)
	}
	seen := map[string]bool{}
	for _, it := range doc.Items {
		if err := it.check(); err != nil {
			return nil, fmt.Errorf("answer key: item %q: %w", it.ID, err)
		}
		if seen[it.ID] {
			return nil, fmt.Errorf("answer key: item %q appears twice", it.ID)
		}
		seen[it.ID] = true
	}
	return doc.Items, nil
}

// ParseGolden is ParseKey, kept for callers of the single-split key.
func ParseGolden(data []byte) ([]Item, error) { return ParseKey(data) }

func isDate(s string) bool { _, err := time.Parse(time.DateOnly, s); return err == nil }

func (it Item) check() error {
	switch {
	case it.ID == "" || it.Question == "":
		return fmt.Errorf("id and question are required")
	case it.ExpectedAsOf != Today && !relativeToday.MatchString(it.ExpectedAsOf) && !isDate(it.ExpectedAsOf):
		return fmt.Errorf("expectedAsOf %q is neither %q, today-<n><y|m|d> nor an ISO date", it.ExpectedAsOf, Today)
	case it.AsOf != "" && it.AsOf != it.ExpectedAsOf:
		return fmt.Errorf("a requested asOf is the expected date")
	case it.Value == nil:
		return fmt.Errorf("the value its source states is required")
	case !validUnit(it.Unit):
		return fmt.Errorf("unit %q is not %%, a currency, or a currency per period", it.Unit)
	case !IsOfficialSource(it.SourceURL):
		return fmt.Errorf("source %q is not an official page", it.SourceURL)
	case !isDate(it.ReadOn):
		return fmt.Errorf("readOn %q is not an ISO date", it.ReadOn)
	}
	return nil
}

// keyOnlyHosts are official publishers the key may cite beyond the
// dataset's hosts: the Houses of the Oireachtas, whose financial
// resolutions state rates before the Finance Act does.
var keyOnlyHosts = []string{"oireachtas.ie"}

// IsOfficialSource reports whether a key item may cite raw: an official
// host of the dataset, or one of keyOnlyHosts, over https.
func IsOfficialSource(raw string) bool {
	if seeddata.IsOfficialURL(raw) {
		return true
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	for _, h := range keyOnlyHosts {
		if host == h || strings.HasSuffix(host, "."+h) {
			return true
		}
	}
	return false
}
