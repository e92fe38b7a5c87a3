// Package calc computes tax amounts from the rules graph's dated facts: each
// calculation reads the parameters valid on its date in one graph read and
// returns a trace whose every line names the facts it used. Calculators are
// pure functions over those parameters; no rate, band or credit is written
// in code. Money is exact (Decimal), never float.
package calc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"regintel/shared/conversation"
	"regintel/shared/graph"
)

// Request asks one calculator for one date.
type Request struct {
	Calculator string          `json:"calculator"`
	AsOf       string          `json:"asOf,omitempty"`
	TaxYear    string          `json:"taxYear,omitempty"`
	Inputs     json.RawMessage `json:"inputs"`
}

// Line is one step of the trace: an amount, the rule that produced it and
// the facts it used.
type Line struct {
	Name    string   `json:"name"`
	Amount  string   `json:"amount"`
	Rule    string   `json:"rule"`
	FactIDs []string `json:"factIds"`
}

// Result is a calculation's answer: the headline total, the trace and the
// citations of every fact the trace used.
type Result struct {
	Calculator  string                  `json:"calculator"`
	AsOf        string                  `json:"asOf"`
	Currency    string                  `json:"currency"`
	Total       string                  `json:"total"`
	Lines       []Line                  `json:"lines"`
	Citations   []conversation.Citation `json:"citations"`
	Assumptions []string                `json:"assumptions"`
	Warnings    []string                `json:"warnings"`
}

// Calculator is one computation over dated facts.
type Calculator interface {
	Name() string                // "ie_income_tax"
	Jurisdiction() string        // "IE" | "UK"
	Description() string         // one line, for the chat tool and the OpenAPI doc
	InputSchema() map[string]any // JSON Schema (object, additionalProperties false) of Inputs
	// Series names every fact series it reads for date. A name ending in
	// "*" reads every series with that prefix (a table of bands).
	Series(date string) []string
	// Compute decodes inputs strictly (an unknown field is a FieldError)
	// and computes from p alone.
	Compute(p Params, inputs json.RawMessage) (Result, error)
}

// InputDater is implemented by a calculator whose inputs carry their own
// date (the date of a gift, of a registration): Run uses it when the
// request names neither asOf nor taxYear.
type InputDater interface {
	InputDate(inputs json.RawMessage) (string, bool, error)
}

// FieldError is a request the calculator cannot take, naming the field
// ("calculator", "asOf", "taxYear", "inputs.income").
type FieldError struct {
	Field, Message string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// MissingFactsError says the graph lacks these series for the date.
type MissingFactsError struct {
	Date   string
	Series []string
}

func (e *MissingFactsError) Error() string {
	return fmt.Sprintf("the graph has no value valid on %s for: %s", e.Date, strings.Join(e.Series, ", "))
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Calculator{}
)

// Register adds a calculator; each calculator's file calls it from init.
// A second calculator with the same name is a programming error.
func Register(c Calculator) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[c.Name()]; dup {
		panic("calc: calculator registered twice: " + c.Name())
	}
	registry[c.Name()] = c
}

// Lookup finds a calculator by name.
func Lookup(name string) (Calculator, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	c, ok := registry[name]
	return c, ok
}

// All returns every calculator, sorted by name.
func All() []Calculator {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]Calculator, 0, len(registry))
	for _, c := range registry {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Calculator) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// Run computes req: it resolves the date, reads every series the
// calculator names in ONE FactSeries call, keeps the official values, runs
// the calculator and cites each fact its lines used.
func Run(ctx context.Context, g graph.SeriesReader, req Request, today time.Time) (Result, error) {
	c, ok := Lookup(req.Calculator)
	if !ok {
		return Result{}, &FieldError{Field: "calculator", Message: fmt.Sprintf("unknown calculator %q", req.Calculator)}
	}
	date, err := requestDate(c, req, today)
	if err != nil {
		return Result{}, err
	}
	var nodes []graph.Node
	if series := c.Series(date); len(series) > 0 {
		nodes, err = g.FactSeries(ctx, series)
		if err != nil {
			return Result{}, fmt.Errorf("calc: read facts: %w", err)
		}
	}
	p := NewParams(date, nodes)
	inputs := req.Inputs
	if len(bytes.TrimSpace(inputs)) == 0 || bytes.Equal(bytes.TrimSpace(inputs), []byte("null")) {
		inputs = json.RawMessage("{}")
	}
	res, err := c.Compute(p, inputs)
	if err != nil {
		return Result{}, err
	}
	res.Calculator, res.AsOf = c.Name(), date
	res.Citations = p.Citations(res.Lines, today)
	res.normalize()
	return res, nil
}

// requestDate is the request's asOf or tax year, else the inputs' own date,
// else today.
func requestDate(c Calculator, req Request, today time.Time) (string, error) {
	if req.AsOf == "" && req.TaxYear == "" {
		if d, ok := c.(InputDater); ok {
			date, found, err := d.InputDate(req.Inputs)
			if err != nil {
				return "", err
			}
			if found {
				return date, nil
			}
		}
	}
	return ResolveDate(req, c.Jurisdiction(), today)
}

// normalize gives every list a non-nil value so JSON has [] not null.
func (r *Result) normalize() {
	if r.Lines == nil {
		r.Lines = []Line{}
	}
	for i := range r.Lines {
		if r.Lines[i].FactIDs == nil {
			r.Lines[i].FactIDs = []string{}
		}
	}
	if r.Citations == nil {
		r.Citations = []conversation.Citation{}
	}
	if r.Assumptions == nil {
		r.Assumptions = []string{}
	}
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
}

// DecodeInputs decodes raw (a JSON object) into the struct v points to,
// strictly: an unknown field, a null or empty string, a wrong type or a malformed amount is
// a FieldError naming the input ("inputs.income").
func DecodeInputs(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return &FieldError{Field: "inputs", Message: "must be a JSON object"}
	}
	target := reflect.ValueOf(v).Elem()
	byName := map[string]int{}
	for i := range target.NumField() {
		name, _, _ := strings.Cut(target.Type().Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			byName[name] = i
		}
	}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		i, ok := byName[name]
		if !ok {
			return &FieldError{Field: "inputs." + name, Message: "unknown input"}
		}
		// null and "" are values of no input; one left out takes its default.
		switch string(bytes.TrimSpace(fields[name])) {
		case "null":
			return &FieldError{Field: "inputs." + name, Message: "must not be null: leave the input out for its default"}
		case `""`:
			return &FieldError{Field: "inputs." + name, Message: "must not be empty: leave the input out for its default"}
		}
		if err := json.Unmarshal(fields[name], target.Field(i).Addr().Interface()); err != nil {
			return &FieldError{Field: "inputs." + name, Message: fieldReason(err)}
		}
	}
	return nil
}

func fieldReason(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return "must be " + typeErr.Type.String()
	}
	return err.Error()
}
