package main

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsbudgets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsec2"
	"github.com/aws/jsii-runtime-go"
)

// budget is a monthly cost budget for the stage's account (each stage
// file pins its own account), alerting the alarm topic at 80 % of the
// limit spent and at 100 % forecast. Without alarmTopicArn (a dev stage)
// the budget is still tracked, with no one told.
func (s *Stack) budget() {
	props := &awsbudgets.CfnBudgetProps{
		Budget: &awsbudgets.CfnBudget_BudgetDataProperty{
			BudgetName: jsii.String("regintel-" + s.cfg.Stage),
			BudgetType: jsii.String("COST"),
			TimeUnit:   jsii.String("MONTHLY"),
			BudgetLimit: &awsbudgets.CfnBudget_SpendProperty{
				Amount: jsii.Number(s.cfg.MonthlyBudgetUSD),
				Unit:   jsii.String("USD"),
			},
		},
	}
	if s.cfg.AlarmTopicArn != "" {
		notify := func(kind string, percent float64) awsbudgets.CfnBudget_NotificationWithSubscribersProperty {
			return awsbudgets.CfnBudget_NotificationWithSubscribersProperty{
				Notification: &awsbudgets.CfnBudget_NotificationProperty{
					NotificationType:   jsii.String(kind),
					ComparisonOperator: jsii.String("GREATER_THAN"),
					Threshold:          jsii.Number(percent),
					ThresholdType:      jsii.String("PERCENTAGE"),
				},
				Subscribers: &[]interface{}{awsbudgets.CfnBudget_SubscriberProperty{
					SubscriptionType: jsii.String("SNS"),
					Address:          jsii.String(s.cfg.AlarmTopicArn),
				}},
			}
		}
		props.NotificationsWithSubscribers = &[]interface{}{notify("ACTUAL", 80), notify("FORECASTED", 100)}
	}
	awsbudgets.NewCfnBudget(s.Stack, jsii.String("MonthlyBudget"), props)
}

// natAlarms: a NAT gateway that cannot allocate a source port drops new
// connections to the model, the official sources and AWS APIs.
func (s *Stack) natAlarms() {
	if s.cfg.VpcID != "" {
		return // an imported VPC's gateways are its owner's to watch
	}
	vpc, ok := s.net.vpc.(awsec2.Vpc)
	if !ok {
		return
	}
	for i, sub := range *vpc.PublicSubnets() {
		nat, ok := sub.Node().TryFindChild(jsii.String("NATGateway")).(awsec2.CfnNatGateway)
		if !ok {
			continue
		}
		s.alarm(fmt.Sprintf("NatGateway%dPortAllocation", i), "regintel NAT gateway: source ports exhausted, new outbound connections fail",
			awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
				Namespace: jsii.String("AWS/NATGateway"), MetricName: jsii.String("ErrorPortAllocation"),
				DimensionsMap: &map[string]*string{"NatGatewayId": nat.Ref()},
				Period:        fiveMinutes, Statistic: jsii.String("Sum"),
			}), 1)
	}
}

// proxyAlarms: functions that wait a second or more for a pooled
// connection (the proxy's share of max_connections is used up), and IAM
// sign-ins the proxy refuses (no function can reach the database).
func (s *Stack) proxyAlarms() {
	if s.db.proxy == nil {
		return
	}
	metric := func(name, stat string) awscloudwatch.IMetric {
		return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
			Namespace: jsii.String("AWS/RDS"), MetricName: jsii.String(name),
			DimensionsMap: &map[string]*string{"ProxyName": s.db.proxy.DbProxyName()},
			Period:        fiveMinutes, Statistic: jsii.String(stat),
		})
	}
	s.alarm("ProxyBorrowLatency", "regintel RDS Proxy: clients wait 1 s or more for a database connection",
		metric("DatabaseConnectionsBorrowLatency", "Average"), 1_000_000) // microseconds
	s.alarm("ProxyFailedAuth", "regintel RDS Proxy: client sign-ins refused (IAM token or role)",
		metric("ClientConnectionsSetupFailedAuth", "Sum"), 1)
}
