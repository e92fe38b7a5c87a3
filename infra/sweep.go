package main

import (
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdadestinations"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"
)

// sweepRetries is how often Lambda retries a failed scheduled invocation
// before it goes to the failure queue.
const sweepRetries = 2

// scheduleFunction invokes fn on the sweep schedule. The schedule invokes
// asynchronously, so a failed run would otherwise leave no trace but a log
// line: each one that fails after Lambda's retries lands in a failure
// queue (with the error), and any message there alarms. EventBridge sends
// the events it could not deliver to the same queue.
func (s *Stack) scheduleFunction(fn awslambda.Function, id string) {
	stem := strings.TrimSuffix(id, "Function")
	failed := awssqs.NewQueue(s.Stack, jsii.String(stem+"FailureQueue"), &awssqs.QueueProps{
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
		Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL:      jsii.Bool(true),
		RemovalPolicy:   removalPolicy(s.cfg),
	})
	failed.Node().DefaultChild().(awssqs.CfnQueue).OverrideLogicalId(jsii.String(stem + "FailureQueue"))
	fn.ConfigureAsyncInvoke(&awslambda.EventInvokeConfigOptions{
		OnFailure:     awslambdadestinations.NewSqsDestination(failed),
		RetryAttempts: jsii.Number(sweepRetries),
		MaxEventAge:   awscdk.Duration_Hours(jsii.Number(6)),
	})
	awsevents.NewRule(s.Stack, jsii.String(id+"Schedule"), &awsevents.RuleProps{
		Description: jsii.String("regintel " + id + " schedule"),
		Schedule:    awsevents.Schedule_Expression(jsii.String(s.cfg.SweepSchedule)),
		Targets: &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(fn, &awseventstargets.LambdaFunctionProps{
			RetryAttempts:   jsii.Number(2),
			MaxEventAge:     awscdk.Duration_Hours(jsii.Number(1)),
			DeadLetterQueue: failed,
		})},
	})
	s.alarm(stem+"FailureQueueDepth", "regintel sweep: a scheduled run failed after its retries (message in the failure queue)",
		failed.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{
			Period: fiveMinutes, Statistic: jsii.String("Maximum"),
		}), 1)
	s.alarm(id+"Errors", "regintel sweep: a run failed (it is retried; the retention period is a legal obligation)",
		fn.MetricErrors(&awscloudwatch.MetricOptions{Period: fiveMinutes, Statistic: jsii.String("Sum")}), 1)
	s.sweepFailureQueue = failed
}

// sweepRemovedNothing alarms when a sweep run removed no row although
// rows past the retention period remain: the sweep is not doing its job
// (a wrong role, a lock held for a day) even though it reports success.
func (s *Stack) sweepRemovedNothing() {
	stuck := awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String("IF(removed == 0 AND remaining > 0, 1, 0)"),
		UsingMetrics: &map[string]awscloudwatch.IMetric{
			"removed":   appMetric("sweep", "RowsRemoved", "Sum", ""),
			"remaining": appMetric("sweep", "ExpiredRowsRemaining", "Maximum", ""),
		},
		Period: fiveMinutes, Label: jsii.String("sweep removed nothing while expired rows remain"),
	})
	s.alarm("SweepRemovedNothing", "regintel sweep: a run removed 0 rows while rows past the retention period remain", stuck, 1)
}
