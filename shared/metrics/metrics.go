// Package metrics writes CloudWatch Embedded Metric Format (EMF) records:
// one JSON object per line, with the metric values and dimensions at the
// root and an "_aws" member telling CloudWatch Logs which root members are
// metrics. Under Lambda the function's log stream carries them to
// CloudWatch, which extracts the metrics; nothing else is called.
//
// No Go EMF library is both maintained and served by the module proxy, so
// this is a small encoder of the part of the format the functions use: one
// namespace and one dimension set per record.
package metrics

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"sync"
	"time"
)

// Unit is a CloudWatch metric unit.
type Unit string

// The units the functions use.
const (
	Count        Unit = "Count"
	Milliseconds Unit = "Milliseconds"
	None         Unit = "None"
)

// Namespace is where every metric of the backend goes.
const Namespace = "Regintel"

// Limits of the format: dimensions per dimension set, metrics per directive.
const (
	MaxDimensions = 30
	MaxMetrics    = 100
)

// Metric is one value.
type Metric struct {
	Name  string
	Unit  Unit
	Value float64
}

// Dimension names a slice of the metrics, e.g. Function=chat.
type Dimension struct {
	Name  string
	Value string
}

// Record is one EMF document: its metrics under one dimension set, plus
// properties (root members that are searchable in the logs but are not
// metrics, such as a request id).
type Record struct {
	Dimensions []Dimension
	Metrics    []Metric
	Properties map[string]any
}

// ErrInvalid is a record the format cannot carry.
var ErrInvalid = errors.New("metrics: invalid EMF record")

// Encode returns the record as one EMF JSON document (no newline), stamped
// with t, in namespace ns.
func Encode(ns string, t time.Time, r Record) ([]byte, error) {
	if err := r.check(ns); err != nil {
		return nil, err
	}
	root := make(map[string]any, len(r.Properties)+len(r.Dimensions)+len(r.Metrics)+1)
	for k, v := range r.Properties {
		root[k] = v
	}
	dims := make([]string, 0, len(r.Dimensions))
	for _, d := range r.Dimensions {
		root[d.Name] = d.Value
		dims = append(dims, d.Name)
	}
	defs := make([]metricDefinition, 0, len(r.Metrics))
	for _, m := range r.Metrics {
		root[m.Name] = m.Value
		defs = append(defs, metricDefinition{Name: m.Name, Unit: m.Unit})
	}
	root["_aws"] = metadata{
		Timestamp:         t.UnixMilli(),
		CloudWatchMetrics: []metricDirective{{Namespace: ns, Dimensions: [][]string{dims}, Metrics: defs}},
	}
	return json.Marshal(root)
}

type metadata struct {
	Timestamp         int64             `json:"Timestamp"`
	CloudWatchMetrics []metricDirective `json:"CloudWatchMetrics"`
}

type metricDirective struct {
	Namespace  string             `json:"Namespace"`
	Dimensions [][]string         `json:"Dimensions"`
	Metrics    []metricDefinition `json:"Metrics"`
}

type metricDefinition struct {
	Name string `json:"Name"`
	Unit Unit   `json:"Unit,omitempty"`
}

// check applies the format's rules: a namespace, at most 30 dimensions and
// 100 metrics, every root member named once, finite values.
func (r Record) check(ns string) error {
	switch {
	case ns == "":
		return fmt.Errorf("%w: no namespace", ErrInvalid)
	case len(r.Metrics) == 0:
		return fmt.Errorf("%w: no metrics", ErrInvalid)
	case len(r.Metrics) > MaxMetrics:
		return fmt.Errorf("%w: %d metrics, at most %d", ErrInvalid, len(r.Metrics), MaxMetrics)
	case len(r.Dimensions) > MaxDimensions:
		return fmt.Errorf("%w: %d dimensions, at most %d", ErrInvalid, len(r.Dimensions), MaxDimensions)
	}
	seen := map[string]bool{"_aws": true}
	claim := func(name string) error {
		if name == "" || seen[name] {
			return fmt.Errorf("%w: member %q is empty or named twice", ErrInvalid, name)
		}
		seen[name] = true
		return nil
	}
	for _, d := range r.Dimensions {
		if err := claim(d.Name); err != nil {
			return err
		}
	}
	for _, m := range r.Metrics {
		if err := claim(m.Name); err != nil {
			return err
		}
		if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
			return fmt.Errorf("%w: metric %q is not a finite number", ErrInvalid, m.Name)
		}
	}
	for k := range r.Properties {
		if err := claim(k); err != nil {
			return err
		}
	}
	return nil
}

// Emitter writes records, one line each, for one function. A nil Emitter
// emits nothing, so metrics cost nothing where they are off.
type Emitter struct {
	mu       sync.Mutex
	w        io.Writer
	function string
	log      *slog.Logger
	now      func() time.Time
}

// New returns an emitter writing to w; every record carries the dimension
// Function=function. log reports records that cannot be encoded.
func New(w io.Writer, function string, log *slog.Logger) *Emitter {
	if log == nil {
		log = slog.Default()
	}
	return &Emitter{w: w, function: function, log: log, now: time.Now}
}

// Emit writes the record with the function's dimension first. A record the
// format cannot carry is logged and dropped: metrics never fail the work.
func (e *Emitter) Emit(r Record) {
	if e == nil {
		return
	}
	r.Dimensions = append([]Dimension{{Name: "Function", Value: e.function}}, r.Dimensions...)
	b, err := Encode(Namespace, e.now(), r)
	if err != nil {
		e.log.Error("metrics: record dropped", "err", err)
		return
	}
	b = append(b, '\n')
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, err := e.w.Write(b); err != nil {
		e.log.Warn("metrics: write failed", "err", err)
	}
}

// Millis is a duration as a Milliseconds value.
func Millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// ForFunction is the emitter of a function: standard output when its logs
// are JSON (the default under Lambda, whose log stream CloudWatch reads the
// records from; LOG_FORMAT=json locally), else nil, metrics off.
func ForFunction(logFormat, function string, log *slog.Logger) *Emitter {
	if logFormat != "json" {
		return nil
	}
	return New(os.Stdout, function, log)
}
