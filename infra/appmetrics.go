package main

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/jsii-runtime-go"
)

// metricsNamespace is where the functions' Embedded Metric Format records
// put their metrics (shared/metrics: Namespace); each record carries the
// dimension Function=<function name>.
const metricsNamespace = "Regintel"

// enrichOutcomes are the values of the enrich function's Outcome dimension
// (shared/enrich: Outcome).
var enrichOutcomes = []string{"enriched", "unchanged", "fresh", "no_sources", "failed"}

// Alarm thresholds on the functions' own metrics.
const (
	// turnsFailedPercent: failed turns per 100 over five minutes, counted
	// once at least minTurnsForRatio turns ran (a handful of turns is noise).
	turnsFailedPercent = 5
	minTurnsForRatio   = 20
	// firstByteP99Ms: the first byte waits only on auth and one Postgres
	// round trip, never on the model; 2 s at p99 means the database, the
	// proxy or the key fetch is in trouble.
	firstByteP99Ms = 2000
)

// appMetric is one metric a function emits, with its Function dimension
// (and extra dimension pairs: name, value, ...); label names it on a graph.
func appMetric(function, name, stat, label string, dims ...string) awscloudwatch.Metric {
	dimensions := map[string]*string{"Function": jsii.String(function)}
	for i := 0; i+1 < len(dims); i += 2 {
		dimensions[dims[i]] = jsii.String(dims[i+1])
	}
	props := &awscloudwatch.MetricProps{
		Namespace: jsii.String(metricsNamespace), MetricName: jsii.String(name),
		DimensionsMap: &dimensions, Statistic: jsii.String(stat), Period: fiveMinutes,
	}
	if label != "" { // a labelled alarm metric would become a metric-math alarm
		props.Label = jsii.String(label)
	}
	return awscloudwatch.NewMetric(props)
}

// graphWidget is a dashboard graph a third of a row wide; right, when
// given, goes on the right axis (e.g. tokens next to model calls).
func graphWidget(title string, left []awscloudwatch.IMetric, right ...awscloudwatch.IMetric) awscloudwatch.IWidget {
	props := &awscloudwatch.GraphWidgetProps{Title: jsii.String(title), Left: &left, Width: jsii.Number(8)}
	if len(right) > 0 {
		props.Right = &right
	}
	return awscloudwatch.NewGraphWidget(props)
}

func (s *Stack) deployed(function string) bool {
	_, ok := s.functions[function]
	return ok
}

// appWidgets are the dashboard rows of the functions' own metrics: chat
// turns, first byte, the model, concepts, publishing, and the workers that
// the stack has.
func (s *Stack) appWidgets() [][]awscloudwatch.IWidget {
	sum := func(fn, name string) awscloudwatch.IMetric { return appMetric(fn, name, "Sum", "") }
	rows := [][]awscloudwatch.IWidget{{
		graphWidget("Chat turns", []awscloudwatch.IMetric{sum("chat", "Turns"), sum("chat", "TurnsFailed")}),
		graphWidget("Chat time to first byte (ms)", []awscloudwatch.IMetric{
			appMetric("chat", "TimeToFirstByte", "p50", "first byte p50"),
			appMetric("chat", "TimeToFirstByte", "p99", "first byte p99"),
			appMetric("chat", "TimeToFirstText", "p50", "first text p50"),
		}),
		graphWidget("Chat model calls and tokens", []awscloudwatch.IMetric{sum("chat", "ModelCalls")},
			sum("chat", "InputTokens"), sum("chat", "OutputTokens")),
	}}
	concepts := []awscloudwatch.IMetric{
		appMetric("chat", "ConceptsCaptured", "Sum", "captured"),
		appMetric("chat", "ConceptsResolved", "Sum", "resolved in the turn"),
		appMetric("chat", "ConceptsRejected", "Sum", "rejected by the guard (chat)"),
	}
	publish := []awscloudwatch.IMetric{appMetric("chat", "PublishFailures", "Sum", "chat")}
	if s.deployed("resolve-concepts") {
		concepts = append(concepts, appMetric("resolve-concepts", "ConceptsRejected", "Sum", "rejected by the guard (resolver)"))
		publish = append(publish, appMetric("resolve-concepts", "PublishFailures", "Sum", "resolve-concepts"))
	}
	sweep := []awscloudwatch.IMetric{}
	for _, name := range []string{"Sweeps", "SweepFailures", "RowsRemoved", "ExpiredRowsRemaining", "ContextsDeleted", "SuppliedItemsDeleted", "RequestsExpired"} {
		sweep = append(sweep, sum("sweep", name))
	}
	rows = append(rows, []awscloudwatch.IWidget{
		graphWidget("Concepts", concepts), graphWidget("Queue publish failures", publish), graphWidget("Sweep", sweep),
	})
	var workers []awscloudwatch.IWidget
	if s.deployed("resolve-concepts") {
		workers = append(workers, graphWidget("Resolver records", []awscloudwatch.IMetric{
			sum("resolve-concepts", "ResolverRecords"), sum("resolve-concepts", "ResolverRecordsFailed"),
			sum("resolve-concepts", "ConceptsWritten"),
		}))
	}
	if s.deployed("enrich") {
		var outcomes []awscloudwatch.IMetric
		for _, o := range enrichOutcomes {
			outcomes = append(outcomes, appMetric("enrich", "EnrichmentJobs", "Sum", o, "Outcome", o))
		}
		workers = append(workers, graphWidget("Enrichment jobs by outcome", outcomes))
	}
	if len(workers) > 0 {
		rows = append(rows, workers)
	}
	return rows
}

// appAlarms watch the functions' own metrics: failed turns, a slow first
// byte, lost queue messages, resolver records that failed, failed sweeps.
func (s *Stack) appAlarms() {
	ratio := awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String(fmt.Sprintf("IF(turns >= %d, 100 * FILL(failed, 0) / turns, 0)", minTurnsForRatio)),
		UsingMetrics: &map[string]awscloudwatch.IMetric{
			"turns":  appMetric("chat", "Turns", "Sum", ""),
			"failed": appMetric("chat", "TurnsFailed", "Sum", ""),
		},
		Period: fiveMinutes, Label: jsii.String("failed turns %"),
	})
	s.alarm("ChatTurnsFailed", fmt.Sprintf("regintel chat: %d %% or more of the turns failed (of at least %d in 5 min)", turnsFailedPercent, minTurnsForRatio),
		ratio, turnsFailedPercent)
	s.alarm("ChatFirstByteP99", fmt.Sprintf("regintel chat: time to first byte p99 above %d ms", firstByteP99Ms),
		appMetric("chat", "TimeToFirstByte", "p99", ""), firstByteP99Ms)
	for _, fn := range []string{"chat", "resolve-concepts"} {
		if len(s.sends[fn]) == 0 {
			continue
		}
		s.alarm(logicalID(fn)+"PublishFailures", fmt.Sprintf("regintel %s: queue messages it could not send", fn),
			appMetric(fn, "PublishFailures", "Sum", ""), 1)
	}
	if s.deployed("resolve-concepts") {
		s.alarm("ResolverRecordsFailed", "regintel resolve-concepts: records that failed (retried, then dead-lettered)",
			appMetric("resolve-concepts", "ResolverRecordsFailed", "Sum", ""), 1)
	}
	s.alarm("SweepFailures", "regintel sweep: a retention sweep failed",
		appMetric("sweep", "SweepFailures", "Sum", ""), 1)
	s.sweepRemovedNothing()
}
