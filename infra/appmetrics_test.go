package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

// dashboardMetric is one metric line of a dashboard graph.
type dashboardMetric struct {
	Namespace, Name, Stat, Label string
	Dims                         map[string]string
}

// dashboardGraphs reads the synthesized dashboard body (an Fn::Join whose
// tokens become "TOKEN") into its graphs' metrics by title.
func dashboardGraphs(t *testing.T, s *synthesized) map[string][]dashboardMetric {
	t.Helper()
	dashboards := s.resources("AWS::CloudWatch::Dashboard")
	if len(dashboards) != 1 {
		t.Fatalf("%d dashboards, want 1", len(dashboards))
	}
	var body strings.Builder
	for _, d := range dashboards {
		parts := d["Properties"].(map[string]any)["DashboardBody"].(map[string]any)["Fn::Join"].([]any)[1].([]any)
		for _, p := range parts {
			if str, ok := p.(string); ok {
				body.WriteString(str)
			} else {
				body.WriteString("TOKEN")
			}
		}
	}
	var doc struct {
		Widgets []struct {
			Properties struct {
				Title   string  `json:"title"`
				Metrics [][]any `json:"metrics"`
			} `json:"properties"`
		} `json:"widgets"`
	}
	if err := json.Unmarshal([]byte(body.String()), &doc); err != nil {
		t.Fatalf("dashboard body: %v\n%s", err, body.String())
	}
	out := map[string][]dashboardMetric{}
	for _, w := range doc.Widgets {
		for _, line := range w.Properties.Metrics {
			m := dashboardMetric{Dims: map[string]string{}}
			var fields []string
			for _, f := range line {
				switch v := f.(type) {
				case string:
					fields = append(fields, v)
				case map[string]any:
					m.Stat, _ = v["stat"].(string)
					m.Label, _ = v["label"].(string)
				}
			}
			if len(fields) < 2 {
				continue
			}
			m.Namespace, m.Name = fields[0], fields[1]
			for i := 2; i+1 < len(fields); i += 2 {
				m.Dims[fields[i]] = fields[i+1]
			}
			out[w.Properties.Title] = append(out[w.Properties.Title], m)
		}
	}
	return out
}

// has reports whether graph shows metric name of function at stat, with
// the extra dimension pairs given.
func has(graph []dashboardMetric, function, name, stat string, dims ...string) bool {
	want := map[string]string{"Function": function}
	for i := 0; i+1 < len(dims); i += 2 {
		want[dims[i]] = dims[i+1]
	}
	for _, m := range graph {
		if m.Namespace == "Regintel" && m.Name == name && m.Stat == stat && mustJSON(m.Dims) == mustJSON(want) {
			return true
		}
	}
	return false
}

func TestDashboardShowsTheFunctionsMetrics(t *testing.T) {
	graphs := dashboardGraphs(t, prod(t))
	for _, c := range []struct {
		title, function, name, stat string
		dims                        []string
	}{
		{"Chat turns", "chat", "Turns", "Sum", nil},
		{"Chat turns", "chat", "TurnsFailed", "Sum", nil},
		{"Chat time to first byte (ms)", "chat", "TimeToFirstByte", "p50", nil},
		{"Chat time to first byte (ms)", "chat", "TimeToFirstByte", "p99", nil},
		{"Chat model calls and tokens", "chat", "ModelCalls", "Sum", nil},
		{"Chat model calls and tokens", "chat", "InputTokens", "Sum", nil},
		{"Chat model calls and tokens", "chat", "OutputTokens", "Sum", nil},
		{"Concepts", "chat", "ConceptsRejected", "Sum", nil},
		{"Concepts", "resolve-concepts", "ConceptsRejected", "Sum", nil},
		{"Queue publish failures", "chat", "PublishFailures", "Sum", nil},
		{"Queue publish failures", "resolve-concepts", "PublishFailures", "Sum", nil},
		{"Resolver records", "resolve-concepts", "ResolverRecordsFailed", "Sum", nil},
		{"Enrichment jobs by outcome", "enrich", "EnrichmentJobs", "Sum", []string{"Outcome", "enriched"}},
		{"Enrichment jobs by outcome", "enrich", "EnrichmentJobs", "Sum", []string{"Outcome", "failed"}},
		{"Sweep", "sweep", "Sweeps", "Sum", nil},
		{"Sweep", "sweep", "SweepFailures", "Sum", nil},
		{"Sweep", "sweep", "ContextsDeleted", "Sum", nil},
	} {
		if !has(graphs[c.title], c.function, c.name, c.stat, c.dims...) {
			t.Errorf("dashboard %q lacks %s %s %s %v; has %+v", c.title, c.function, c.name, c.stat, c.dims, graphs[c.title])
		}
	}
	if got := len(graphs["Enrichment jobs by outcome"]); got != len(enrichOutcomes) {
		t.Errorf("enrichment graph has %d outcomes, want %d", got, len(enrichOutcomes))
	}
	// Without a graph there are no workers: no graphs of theirs.
	dev := dashboardGraphs(t, dev(t))
	for _, title := range []string{"Resolver records", "Enrichment jobs by outcome"} {
		if dev[title] != nil {
			t.Errorf("dev without a graph has the %q graph", title)
		}
	}
	if !has(dev["Chat turns"], "chat", "Turns", "Sum") {
		t.Errorf("dev dashboard lacks chat turns")
	}
}

// appAlarm is the alarm on metric name of function, or nil.
func appAlarm(s *synthesized, function, name string) map[string]any {
	for _, a := range s.resources("AWS::CloudWatch::Alarm") {
		p := a["Properties"].(map[string]any)
		if p["Namespace"] == "Regintel" && p["MetricName"] == name &&
			mustJSON(p["Dimensions"]) == mustJSON([]any{map[string]any{"Name": "Function", "Value": function}}) {
			return p
		}
	}
	return nil
}

func TestAlarmsOnTheFunctionsMetrics(t *testing.T) {
	p := prod(t)
	topic := prodContext["alarmTopicArn"]
	for _, c := range []struct {
		function, name string
		threshold      float64
		stat           string
	}{
		{"chat", "TimeToFirstByte", firstByteP99Ms, "p99"},
		{"chat", "PublishFailures", 1, "Sum"},
		{"resolve-concepts", "PublishFailures", 1, "Sum"},
		{"resolve-concepts", "ResolverRecordsFailed", 1, "Sum"},
		{"sweep", "SweepFailures", 1, "Sum"},
	} {
		a := appAlarm(p, c.function, c.name)
		if a == nil {
			t.Errorf("prod has no alarm on %s %s", c.function, c.name)
			continue
		}
		stat := a["Statistic"]
		if stat == nil {
			stat = a["ExtendedStatistic"]
		}
		if a["Threshold"] != c.threshold || stat != c.stat || a["ComparisonOperator"] != "GreaterThanOrEqualToThreshold" {
			t.Errorf("alarm on %s %s: threshold %v %v %v, want >= %v at %s", c.function, c.name, a["Threshold"], a["ComparisonOperator"], stat, c.threshold, c.stat)
		}
		if mustJSON(a["AlarmActions"]) != mustJSON([]any{topic}) || mustJSON(a["OKActions"]) != mustJSON([]any{topic}) {
			t.Errorf("alarm on %s %s notifies %v / %v, want the alarm topic", c.function, c.name, a["AlarmActions"], a["OKActions"])
		}
	}
	turnMetric := func(id, name string) any {
		return assertions.Match_ObjectLike(&map[string]any{"Id": id, "ReturnData": false, "MetricStat": map[string]any{
			"Metric": map[string]any{"Namespace": "Regintel", "MetricName": name,
				"Dimensions": []any{map[string]any{"Name": "Function", "Value": "chat"}}},
			"Stat": "Sum", "Period": 300,
		}})
	}
	assert(t, "prod alarm: failed turns as a share of turns", func() {
		p.tmpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), &map[string]any{
			"Threshold": turnsFailedPercent, "AlarmActions": []any{topic},
			"Metrics": assertions.Match_ArrayWith(&[]any{
				assertions.Match_ObjectLike(&map[string]any{
					"Expression": assertions.Match_StringLikeRegexp(jsii.String(`^IF\(turns >= 20, 100 \* FILL\(failed, 0\) / turns, 0\)$`)),
					"ReturnData": true,
				}),
				turnMetric("failed", "TurnsFailed"), turnMetric("turns", "Turns"),
			}),
		})
	})
	// Without a graph nothing is published or resolved: no alarms on those.
	d := dev(t)
	for _, c := range [][2]string{{"chat", "PublishFailures"}, {"resolve-concepts", "PublishFailures"}, {"resolve-concepts", "ResolverRecordsFailed"}} {
		if appAlarm(d, c[0], c[1]) != nil {
			t.Errorf("dev without a graph alarms on %s %s", c[0], c[1])
		}
	}
	if appAlarm(d, "sweep", "SweepFailures") == nil {
		t.Errorf("dev lacks the sweep failures alarm")
	}
}

// The names the stack watches are the names the functions emit: each is a
// quoted string in the functions' code, as are the enrichment outcomes.
func TestWatchedMetricsAreEmitted(t *testing.T) {
	var src strings.Builder
	err := filepath.WalkDir(filepath.Join("..", "shared"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		src.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	code := src.String()
	if !regexp.MustCompile(`const Namespace = "` + metricsNamespace + `"`).MatchString(code) {
		t.Errorf("shared/metrics does not emit into the namespace %q", metricsNamespace)
	}
	var names []string
	for _, s := range []*synthesized{prod(t), dev(t)} {
		for _, graph := range dashboardGraphs(t, s) {
			for _, m := range graph {
				if m.Namespace == metricsNamespace {
					names = append(names, m.Name)
				}
			}
		}
		for _, a := range s.resources("AWS::CloudWatch::Alarm") {
			if name, ok := a["Properties"].(map[string]any)["MetricName"].(string); ok && a["Properties"].(map[string]any)["Namespace"] == metricsNamespace {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		if !strings.Contains(code, `"`+name+`"`) {
			t.Errorf("the stack watches %s, which no function emits", name)
		}
	}
	for _, o := range enrichOutcomes {
		if !regexp.MustCompile(`Outcome\s*=\s*"` + o + `"`).MatchString(code) {
			t.Errorf("enrich has no outcome %q", o)
		}
	}
}
