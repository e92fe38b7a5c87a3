package main

import (
	"strings"
	"testing"
)

// Each stage's account has a monthly budget; prod's alerts the alarm topic
// at 80 % spent and at 100 % forecast.
func TestBudgetAlertsTheAlarmTopic(t *testing.T) {
	for _, c := range []struct {
		name   string
		s      *synthesized
		limit  float64
		notify bool
	}{{"prod", prod(t), 300, true}, {"dev", dev(t), 100, false}} {
		budgets := c.s.resources("AWS::Budgets::Budget")
		if len(budgets) != 1 {
			t.Fatalf("%s: %d budgets, want 1", c.name, len(budgets))
		}
		for _, b := range budgets {
			p := b["Properties"].(map[string]any)
			limit := p["Budget"].(map[string]any)["BudgetLimit"].(map[string]any)
			if limit["Amount"] != c.limit || limit["Unit"] != "USD" {
				t.Errorf("%s: budget limit %s, want %v USD", c.name, mustJSON(limit), c.limit)
			}
			got := mustJSON(p["NotificationsWithSubscribers"])
			if !c.notify {
				if p["NotificationsWithSubscribers"] != nil {
					t.Errorf("%s: notifications without an alarm topic: %s", c.name, got)
				}
				continue
			}
			for _, want := range []string{`"NotificationType":"ACTUAL"`, `"Threshold":80`, `"NotificationType":"FORECASTED"`, `"Threshold":100`,
				`"SubscriptionType":"SNS"`, prodContext["alarmTopicArn"].(string)} {
				if !strings.Contains(got, want) {
					t.Errorf("%s: budget notifications %s lack %s", c.name, got, want)
				}
			}
		}
	}
}

// alarmOn is the alarm whose metric is namespace/name, by logical id.
func alarmsOn(s *synthesized, namespace, name string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, r := range s.resources("AWS::CloudWatch::Alarm") {
		p := r["Properties"].(map[string]any)
		if p["Namespace"] == namespace && p["MetricName"] == name {
			out[id] = p
		}
	}
	return out
}

// Every NAT gateway the stack makes has a port-allocation alarm, and the
// proxy alarms on slow borrows and refused sign-ins.
func TestNATAndProxyAlarms(t *testing.T) {
	p := prod(t)
	nats := p.resources("AWS::EC2::NatGateway")
	alarms := alarmsOn(p, "AWS/NATGateway", "ErrorPortAllocation")
	if len(nats) != 2 || len(alarms) != len(nats) {
		t.Errorf("prod: %d NAT gateways, %d port-allocation alarms; want 2 and 2", len(nats), len(alarms))
	}
	for natID := range nats {
		found := false
		for _, a := range alarms {
			found = found || refersTo(a["Dimensions"], natID)
		}
		if !found {
			t.Errorf("NAT gateway %s has no port-allocation alarm", natID)
		}
	}
	proxyID := ""
	for id := range p.resources("AWS::RDS::DBProxy") {
		proxyID = id
	}
	for _, metric := range []string{"DatabaseConnectionsBorrowLatency", "ClientConnectionsSetupFailedAuth"} {
		a := alarmsOn(p, "AWS/RDS", metric)
		if len(a) != 1 {
			t.Errorf("prod: %d alarms on the proxy's %s, want 1", len(a), metric)
		}
		for _, props := range a {
			if !refersTo(props["Dimensions"], proxyID) && !strings.Contains(mustJSON(props["Dimensions"]), "regintel-prod") {
				t.Errorf("the %s alarm is not on the proxy: %s", metric, mustJSON(props["Dimensions"]))
			}
		}
	}
	if n := len(alarmsOn(dev(t), "AWS/RDS", "DatabaseConnectionsBorrowLatency")); n != 0 {
		t.Errorf("dev has no proxy but %d proxy alarms", n)
	}
}
