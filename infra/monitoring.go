package main

import (
	"fmt"
	"math"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
)

var fiveMinutes = awscdk.Duration_Minutes(jsii.Number(5))

// chatAlarms: errors, any throttle (reserved concurrency or the account
// quota reached), and p99 duration near the timeout.
func (s *Stack) chatAlarms(fn awslambda.Function, f functionSpec) {
	id := logicalID(f.Name)
	s.alarm(id+"Errors", "regintel chat: invocation errors",
		fn.MetricErrors(&awscloudwatch.MetricOptions{Period: fiveMinutes, Statistic: jsii.String("Sum")}), 5)
	s.alarm(id+"Throttles", "regintel chat: throttled invocations (reserved concurrency or account quota reached)",
		fn.MetricThrottles(&awscloudwatch.MetricOptions{Period: fiveMinutes, Statistic: jsii.String("Sum")}), 1)
	p99 := 0.8 * f.Timeout.Seconds() * 1000
	s.alarm(id+"DurationP99", fmt.Sprintf("regintel chat: p99 duration above %.0f s (80%% of the timeout)", p99/1000),
		fn.MetricDuration(&awscloudwatch.MetricOptions{Period: fiveMinutes, Statistic: jsii.String("p99")}), p99)
}

// auroraMaxConnections is Aurora PostgreSQL's max_connections at the
// cluster's maximum capacity: LEAST(memory / 9531392, 5000), 2 GiB per ACU.
func auroraMaxConnections(maxACU float64) float64 {
	return math.Min(math.Floor(maxACU*2*(1<<30)/9531392), 5000)
}

func (s *Stack) clusterMetric(name, statistic string) awscloudwatch.Metric {
	return s.db.cluster.Metric(jsii.String(name), &awscloudwatch.MetricOptions{Period: fiveMinutes, Statistic: jsii.String(statistic)})
}

// databaseAlarms: capacity pinned at the maximum (queries queue, raise
// dbMaxCapacity) and connections near max_connections.
func (s *Stack) databaseAlarms() {
	s.alarm("DatabaseCapacityAtMax", fmt.Sprintf("regintel Aurora: at its maximum of %.1f ACU", s.cfg.DBMaxCapacity),
		s.clusterMetric("ServerlessDatabaseCapacity", "Minimum"), s.cfg.DBMaxCapacity)
	limit := auroraMaxConnections(s.cfg.DBMaxCapacity)
	s.alarm("DatabaseConnections", fmt.Sprintf("regintel Aurora: connections above 80%% of max_connections (%.0f)", limit),
		s.clusterMetric("DatabaseConnections", "Maximum"), math.Floor(0.8*limit))
}

// dashboard shows the system on one page: invocations, the database, the
// queues, then what the functions report themselves (turns, first byte,
// the model, concepts, the workers, the sweep).
func (s *Stack) dashboard() {
	lambdaGraph := func(title, metric, stat string) awscloudwatch.IWidget {
		var metrics []awscloudwatch.IMetric
		for _, name := range sortedKeys(s.functions) {
			metrics = append(metrics, s.functions[name].Metric(jsii.String(metric), &awscloudwatch.MetricOptions{
				Period: fiveMinutes, Statistic: jsii.String(stat), Label: jsii.String(name),
			}))
		}
		return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{Title: jsii.String(title), Left: &metrics, Width: jsii.Number(8)})
	}
	var queueMetrics []awscloudwatch.IMetric
	for _, key := range sortedKeys(s.queues) {
		queueMetrics = append(queueMetrics,
			s.queues[key].MetricApproximateAgeOfOldestMessage(&awscloudwatch.MetricOptions{Period: fiveMinutes, Statistic: jsii.String("Maximum"), Label: jsii.String(key + " oldest (s)")}),
			s.dlqs[key].MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{Period: fiveMinutes, Statistic: jsii.String("Maximum"), Label: jsii.String(key + " DLQ")}))
	}
	dbGraph := func(title string, metrics ...awscloudwatch.IMetric) awscloudwatch.IWidget {
		return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{Title: jsii.String(title), Left: &metrics, Width: jsii.Number(8)})
	}
	rows := [][]awscloudwatch.IWidget{
		{lambdaGraph("Invocations", "Invocations", "Sum"), lambdaGraph("Errors", "Errors", "Sum"), lambdaGraph("Throttles", "Throttles", "Sum")},
		{lambdaGraph("Duration p99 (ms)", "Duration", "p99"), lambdaGraph("Concurrent executions", "ConcurrentExecutions", "Maximum"),
			dbGraph("Aurora ACU", s.clusterMetric("ServerlessDatabaseCapacity", "Maximum"))},
		{dbGraph("Aurora connections", s.clusterMetric("DatabaseConnections", "Maximum")),
			dbGraph("Aurora CPU %", s.clusterMetric("CPUUtilization", "Maximum"))},
	}
	if len(queueMetrics) > 0 {
		rows[2] = append(rows[2], dbGraph("Queues", queueMetrics...))
	}
	rows = append(rows, s.appWidgets()...)
	widgets := make([]*[]awscloudwatch.IWidget, len(rows))
	for i := range rows {
		widgets[i] = &rows[i]
	}
	awscloudwatch.NewDashboard(s.Stack, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		DashboardName: jsii.String(s.cfg.DashboardName),
		Widgets:       &widgets,
	})
}
