package main

import (
	"strings"
	"testing"
)

// A failed scheduled sweep is kept and alarmed on: Lambda's async
// invocation sends it to a failure queue after its retries, EventBridge
// dead-letters what it cannot deliver there too, and alarms watch the
// queue, the function's errors and a run that removed nothing while
// expired rows remain.
func TestSweepFailuresAreKeptAndAlarmed(t *testing.T) {
	for name, s := range map[string]*synthesized{"dev": dev(t), "prod": prod(t)} {
		if s.props("SweepFailureQueue") == nil {
			t.Fatalf("%s: no SweepFailureQueue", name)
		}
		var onFailure any
		for _, c := range s.resources("AWS::Lambda::EventInvokeConfig") {
			p := c["Properties"].(map[string]any)
			if refersTo(p["FunctionName"], "SweepFunction") {
				onFailure = p["DestinationConfig"]
				if p["MaximumRetryAttempts"] != float64(sweepRetries) {
					t.Errorf("%s: sweep retries %v, want %d", name, p["MaximumRetryAttempts"], sweepRetries)
				}
			}
		}
		if !refersTo(onFailure, "SweepFailureQueue") || !strings.Contains(mustJSON(onFailure), "OnFailure") {
			t.Errorf("%s: sweep's async destination %s, want OnFailure to SweepFailureQueue", name, mustJSON(onFailure))
		}
		targetDLQ := false
		for _, r := range s.resources("AWS::Events::Rule") {
			for _, tg := range asList(r["Properties"].(map[string]any)["Targets"]) {
				m := tg.(map[string]any)
				if refersTo(m["Arn"], "SweepFunction") && refersTo(m["DeadLetterConfig"], "SweepFailureQueue") {
					targetDLQ = true
				}
			}
		}
		if !targetDLQ {
			t.Errorf("%s: the schedule's target has no dead-letter queue", name)
		}
		var queueAlarm, errorsAlarm, stuckAlarm bool
		for _, a := range s.resources("AWS::CloudWatch::Alarm") {
			p := a["Properties"].(map[string]any)
			doc := mustJSON(p)
			switch {
			case p["MetricName"] == "ApproximateNumberOfMessagesVisible" && refersTo(p["Dimensions"], "SweepFailureQueue"):
				queueAlarm = p["Threshold"] == float64(1)
			case p["MetricName"] == "Errors" && p["Namespace"] == "AWS/Lambda" && refersTo(p["Dimensions"], "SweepFunction"):
				errorsAlarm = p["Threshold"] == float64(1)
			case strings.Contains(doc, `IF(removed == 0 AND remaining \u003e 0, 1, 0)`):
				stuckAlarm = strings.Contains(doc, `"MetricName":"RowsRemoved"`) && strings.Contains(doc, `"MetricName":"ExpiredRowsRemaining"`) &&
					p["Threshold"] == float64(1)
			}
		}
		if !queueAlarm || !errorsAlarm || !stuckAlarm {
			t.Errorf("%s: sweep alarms: failure queue %v, errors %v, removed-nothing %v; want all", name, queueAlarm, errorsAlarm, stuckAlarm)
		}
	}
}
