// Package metricstest checks EMF records against the structure the
// CloudWatch Embedded Metric Format specification defines, and collects the
// records an emitter writes, for tests.
package metricstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// units are the units CloudWatch accepts.
var units = []string{"Seconds", "Microseconds", "Milliseconds", "Bytes", "Kilobytes", "Megabytes", "Gigabytes",
	"Terabytes", "Bits", "Kilobits", "Megabits", "Gigabits", "Terabits", "Percent", "Count", "Bytes/Second",
	"Kilobytes/Second", "Megabytes/Second", "Gigabytes/Second", "Terabytes/Second", "Bits/Second", "Kilobits/Second",
	"Megabits/Second", "Gigabits/Second", "Terabits/Second", "Count/Second", "None"}

// Record is a parsed, checked EMF record.
type Record struct {
	Root       map[string]any
	Namespace  string
	Dimensions [][]string
	Units      map[string]string // metric name to unit
}

// Value is the root member name, as a number (metrics) or string (dimensions).
func (r Record) Value(name string) any { return r.Root[name] }

// Check parses line as one EMF document and checks its structure: a JSON
// object whose "_aws" holds exactly a numeric Timestamp and CloudWatchMetrics,
// directives of exactly Namespace, Dimensions and Metrics, every dimension a
// string member of the root, every metric a number (or array of numbers)
// member of the root with a known unit, and nothing else in those objects.
func Check(line []byte) (Record, error) {
	var root map[string]json.RawMessage
	if err := json.Unmarshal(line, &root); err != nil {
		return Record{}, fmt.Errorf("not a JSON object: %w", err)
	}
	var aws map[string]json.RawMessage
	if err := json.Unmarshal(root["_aws"], &aws); err != nil || aws == nil {
		return Record{}, fmt.Errorf("_aws is not an object")
	}
	if err := exactly(aws, "Timestamp", "CloudWatchMetrics"); err != nil {
		return Record{}, fmt.Errorf("_aws: %w", err)
	}
	var ts float64
	if err := json.Unmarshal(aws["Timestamp"], &ts); err != nil || ts <= 0 {
		return Record{}, fmt.Errorf("_aws.Timestamp is not a positive number of milliseconds")
	}
	var directives []map[string]json.RawMessage
	if err := json.Unmarshal(aws["CloudWatchMetrics"], &directives); err != nil || len(directives) == 0 {
		return Record{}, fmt.Errorf("_aws.CloudWatchMetrics is not a non-empty array of objects")
	}
	if len(directives) != 1 {
		return Record{}, fmt.Errorf("%d directives; this encoder writes one", len(directives))
	}
	values := map[string]any{}
	if err := json.Unmarshal(line, &values); err != nil {
		return Record{}, err
	}
	return checkDirective(directives[0], values)
}

func checkDirective(d map[string]json.RawMessage, root map[string]any) (Record, error) {
	rec := Record{Root: root, Units: map[string]string{}}
	if err := exactly(d, "Namespace", "Dimensions", "Metrics"); err != nil {
		return rec, fmt.Errorf("directive: %w", err)
	}
	if json.Unmarshal(d["Namespace"], &rec.Namespace) != nil || rec.Namespace == "" {
		return rec, fmt.Errorf("directive: Namespace is not a non-empty string")
	}
	if json.Unmarshal(d["Dimensions"], &rec.Dimensions) != nil {
		return rec, fmt.Errorf("directive: Dimensions is not an array of arrays of strings")
	}
	for _, set := range rec.Dimensions {
		if len(set) > 30 {
			return rec, fmt.Errorf("a dimension set of %d; at most 30", len(set))
		}
		for _, name := range set {
			if _, ok := root[name].(string); !ok {
				return rec, fmt.Errorf("dimension %q is not a string member of the root", name)
			}
		}
	}
	var defs []map[string]json.RawMessage
	if json.Unmarshal(d["Metrics"], &defs) != nil || len(defs) == 0 || len(defs) > 100 {
		return rec, fmt.Errorf("directive: Metrics is not an array of 1 to 100 objects")
	}
	for _, def := range defs {
		name, unit, err := checkDefinition(def, root)
		if err != nil {
			return rec, err
		}
		rec.Units[name] = unit
	}
	return rec, nil
}

func checkDefinition(def map[string]json.RawMessage, root map[string]any) (name, unit string, err error) {
	for k := range def {
		if k != "Name" && k != "Unit" && k != "StorageResolution" {
			return "", "", fmt.Errorf("metric definition has member %q", k)
		}
	}
	if json.Unmarshal(def["Name"], &name) != nil || name == "" || len(name) > 1024 {
		return "", "", fmt.Errorf("metric Name is not a string of 1 to 1024 characters")
	}
	if raw, ok := def["Unit"]; ok {
		if json.Unmarshal(raw, &unit) != nil || !slices.Contains(units, unit) {
			return "", "", fmt.Errorf("metric %q: unit %s is not a CloudWatch unit", name, raw)
		}
	}
	switch v := root[name].(type) {
	case float64:
	case []any:
		for _, x := range v {
			if _, ok := x.(float64); !ok {
				return "", "", fmt.Errorf("metric %q: array holds a non-number", name)
			}
		}
	default:
		return "", "", fmt.Errorf("metric %q is not a number member of the root", name)
	}
	return name, unit, nil
}

func exactly(obj map[string]json.RawMessage, names ...string) error {
	for _, n := range names {
		if _, ok := obj[n]; !ok {
			return fmt.Errorf("missing %s", n)
		}
	}
	for k := range obj {
		if !slices.Contains(names, k) {
			return fmt.Errorf("unexpected member %q", k)
		}
	}
	return nil
}

// Sink collects an emitter's output. It is safe for concurrent writes.
type Sink struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *Sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

// Records checks every line written so far and returns the records; a line
// that is not a valid EMF record fails the test.
func (s *Sink) Records(t testing.TB) []Record {
	t.Helper()
	s.mu.Lock()
	text := s.buf.String()
	s.mu.Unlock()
	var out []Record
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if line == "" {
			continue
		}
		rec, err := Check([]byte(line))
		if err != nil {
			t.Fatalf("not an EMF record: %v\n%s", err, line)
		}
		out = append(out, rec)
	}
	return out
}

// Named returns the records whose root has the given metric.
func Named(recs []Record, metric string) []Record {
	var out []Record
	for _, r := range recs {
		if _, ok := r.Units[metric]; ok {
			out = append(out, r)
		}
	}
	return out
}
