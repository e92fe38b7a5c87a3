package metrics_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"regintel/shared/metrics"
	"regintel/shared/metrics/metricstest"
)

func TestEmitWritesOneEMFRecordPerLine(t *testing.T) {
	var sink metricstest.Sink
	e := metrics.New(&sink, "chat", nil)
	e.Emit(metrics.Record{
		Dimensions: []metrics.Dimension{{Name: "Outcome", Value: "ok"}},
		Metrics: []metrics.Metric{
			{Name: "Turns", Unit: metrics.Count, Value: 1},
			{Name: "TimeToFirstByte", Unit: metrics.Milliseconds, Value: 12.5},
		},
		Properties: map[string]any{"request_id": "r-1"},
	})
	e.Emit(metrics.Record{Metrics: []metrics.Metric{{Name: "Sweeps", Unit: metrics.Count, Value: 1}}})

	recs := sink.Records(t)
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	r := recs[0]
	if r.Namespace != metrics.Namespace {
		t.Errorf("namespace %q", r.Namespace)
	}
	if len(r.Dimensions) != 1 || strings.Join(r.Dimensions[0], ",") != "Function,Outcome" {
		t.Errorf("dimensions %v, want [[Function Outcome]]", r.Dimensions)
	}
	if r.Value("Function") != "chat" || r.Value("Outcome") != "ok" || r.Value("request_id") != "r-1" {
		t.Errorf("root members %v", r.Root)
	}
	if r.Value("Turns") != 1.0 || r.Value("TimeToFirstByte") != 12.5 {
		t.Errorf("values at the root: %v", r.Root)
	}
	if r.Units["Turns"] != "Count" || r.Units["TimeToFirstByte"] != "Milliseconds" {
		t.Errorf("units %v", r.Units)
	}
	if _, isMetric := r.Units["request_id"]; isMetric {
		t.Error("a property became a metric")
	}
}

func TestEncodeStampsTheTimestampInMilliseconds(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	b, err := metrics.Encode(metrics.Namespace, at, metrics.Record{Metrics: []metrics.Metric{{Name: "Jobs", Unit: metrics.Count, Value: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"Timestamp":1767323045006`) {
		t.Errorf("timestamp not in epoch milliseconds: %s", b)
	}
	if _, err := metricstest.Check(b); err != nil {
		t.Error(err)
	}
}

func TestEncodeRefusesWhatTheFormatCannotCarry(t *testing.T) {
	one := []metrics.Metric{{Name: "Turns", Unit: metrics.Count, Value: 1}}
	many := make([]metrics.Metric, metrics.MaxMetrics+1)
	for i := range many {
		many[i] = metrics.Metric{Name: "M" + strings.Repeat("x", i), Unit: metrics.Count, Value: 1}
	}
	dims := make([]metrics.Dimension, metrics.MaxDimensions+1)
	for i := range dims {
		dims[i] = metrics.Dimension{Name: "D" + strings.Repeat("x", i), Value: "v"}
	}
	cases := map[string]struct {
		ns string
		r  metrics.Record
	}{
		"no namespace":           {"", metrics.Record{Metrics: one}},
		"no metrics":             {metrics.Namespace, metrics.Record{}},
		"too many metrics":       {metrics.Namespace, metrics.Record{Metrics: many}},
		"too many dimensions":    {metrics.Namespace, metrics.Record{Metrics: one, Dimensions: dims}},
		"metric named _aws":      {metrics.Namespace, metrics.Record{Metrics: []metrics.Metric{{Name: "_aws", Value: 1}}}},
		"dimension is a metric":  {metrics.Namespace, metrics.Record{Metrics: one, Dimensions: []metrics.Dimension{{Name: "Turns", Value: "x"}}}},
		"property is a metric":   {metrics.Namespace, metrics.Record{Metrics: one, Properties: map[string]any{"Turns": 2}}},
		"not a finite number":    {metrics.Namespace, metrics.Record{Metrics: []metrics.Metric{{Name: "X", Value: math.NaN()}}}},
		"metric without a name":  {metrics.Namespace, metrics.Record{Metrics: []metrics.Metric{{Value: 1}}}},
		"infinite metric values": {metrics.Namespace, metrics.Record{Metrics: []metrics.Metric{{Name: "X", Value: math.Inf(1)}}}},
	}
	for name, c := range cases {
		if _, err := metrics.Encode(c.ns, time.Now(), c.r); !errors.Is(err, metrics.ErrInvalid) {
			t.Errorf("%s: err %v, want ErrInvalid", name, err)
		}
	}
}

func TestEmitDropsAnInvalidRecordAndANilEmitterIsOff(t *testing.T) {
	var sink metricstest.Sink
	metrics.New(&sink, "chat", nil).Emit(metrics.Record{})
	if recs := sink.Records(t); len(recs) != 0 {
		t.Errorf("%d records written for an invalid record", len(recs))
	}
	var off *metrics.Emitter
	off.Emit(metrics.Record{Metrics: []metrics.Metric{{Name: "Turns", Value: 1}}}) // must not panic
}

// The checker itself must reject what the specification forbids, or the
// tests that use it prove nothing.
func TestCheckRejectsMalformedDocuments(t *testing.T) {
	bad := map[string]string{
		"no _aws":              `{"Turns":1}`,
		"no timestamp":         `{"_aws":{"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[[]],"Metrics":[{"Name":"Turns"}]}]},"Turns":1}`,
		"value not at root":    `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[[]],"Metrics":[{"Name":"Turns"}]}]}}`,
		"dimension not string": `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[["F"]],"Metrics":[{"Name":"Turns"}]}]},"Turns":1,"F":2}`,
		"unknown unit":         `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[[]],"Metrics":[{"Name":"Turns","Unit":"Turns"}]}]},"Turns":1}`,
		"extra directive key":  `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[[]],"Metrics":[{"Name":"Turns"}],"X":1}]},"Turns":1}`,
		"no namespace":         `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Dimensions":[[]],"Metrics":[{"Name":"Turns"}]}]},"Turns":1}`,
	}
	for name, doc := range bad {
		if _, err := metricstest.Check([]byte(doc)); err == nil {
			t.Errorf("%s: accepted %s", name, doc)
		}
	}
	good := `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[["F"]],"Metrics":[{"Name":"Turns","Unit":"Count"}]}]},"Turns":[1,2],"F":"chat"}`
	if _, err := metricstest.Check([]byte(good)); err != nil {
		t.Errorf("rejected a valid document: %v", err)
	}
}
