package main

import (
	"strings"
	"testing"
)

// aliasOf is the logical id of the live alias of function id, and its
// resource.
func aliasOf(t *testing.T, s *synthesized, fnID string) (string, map[string]any) {
	t.Helper()
	for id, r := range s.resources("AWS::Lambda::Alias") {
		p := r["Properties"].(map[string]any)
		if refersTo(p["FunctionName"], fnID) && p["Name"] == liveAlias {
			return id, r
		}
	}
	t.Fatalf("%s has no %q alias", fnID, liveAlias)
	return "", nil
}

func aliasID(t *testing.T, s *synthesized, fnID string) string {
	t.Helper()
	id, _ := aliasOf(t, s, fnID)
	return id
}

// Traffic reaches the functions through their live alias, on a published
// version, and CodeDeploy shifts it: canary 10 % for 5 minutes in prod,
// all at once in dev, rolled back by the function's alarms.
func TestTrafficShiftsThroughAnAliasAndRollsBack(t *testing.T) {
	for _, c := range []struct {
		name    string
		s       *synthesized
		config  string
		servers map[string][]string // function -> alarms that roll it back
	}{
		{"prod", prod(t), "CodeDeployDefault.LambdaCanary10Percent5Minutes", map[string][]string{
			"ChatFunction":            {"ChatFunctionErrorsAlarm", "ChatFunctionThrottlesAlarm", "ChatFirstByteP99Alarm"},
			"ResolveConceptsFunction": {"ResolveConceptsFunctionErrorsAlarm"},
			"EnrichFunction":          {"EnrichFunctionErrorsAlarm"},
		}},
		{"dev", dev(t), "CodeDeployDefault.LambdaAllAtOnce", map[string][]string{
			"ChatFunction": {"ChatFunctionErrorsAlarm", "ChatFunctionThrottlesAlarm", "ChatFirstByteP99Alarm"},
		}},
	} {
		for fn, alarms := range c.servers {
			aliasID, alias := aliasOf(t, c.s, fn)
			version := alias["Properties"].(map[string]any)["FunctionVersion"]
			if !strings.Contains(mustJSON(version), "Version") {
				t.Errorf("%s %s: alias version %s, want a published version", c.name, fn, mustJSON(version))
			}
			if !strings.Contains(mustJSON(alias["UpdatePolicy"]), "CodeDeployLambdaAliasUpdate") {
				t.Errorf("%s %s: the alias is not updated by CodeDeploy: %s", c.name, fn, mustJSON(alias["UpdatePolicy"]))
			}
			var group map[string]any
			for _, r := range c.s.resources("AWS::CodeDeploy::DeploymentGroup") {
				if strings.Contains(mustJSON(r), aliasID) || strings.Contains(mustJSON(alias["UpdatePolicy"]), mustJSON(r["Properties"].(map[string]any)["DeploymentGroupName"])) {
					group = r["Properties"].(map[string]any)
				}
			}
			if group == nil {
				// The alias names its group in its update policy.
				for id, r := range c.s.resources("AWS::CodeDeploy::DeploymentGroup") {
					if strings.Contains(mustJSON(alias["UpdatePolicy"]), id) {
						group = r["Properties"].(map[string]any)
					}
				}
			}
			if group == nil {
				t.Errorf("%s %s: no deployment group shifts its alias", c.name, fn)
				continue
			}
			if got := mustJSON(group["DeploymentConfigName"]); !strings.Contains(got, c.config) {
				t.Errorf("%s %s: deployment config %s, want %s", c.name, fn, got, c.config)
			}
			for _, a := range alarms {
				// Alarm ids carry CDK's hash suffix.
				if !strings.Contains(mustJSON(group["AlarmConfiguration"]), `{"Ref":"`+a) {
					t.Errorf("%s %s: alarm %s does not roll the deploy back: %s", c.name, fn, a, mustJSON(group["AlarmConfiguration"]))
				}
			}
			if !strings.Contains(mustJSON(group["AutoRollbackConfiguration"]), "DEPLOYMENT_STOP_ON_ALARM") {
				t.Errorf("%s %s: no rollback on alarm: %s", c.name, fn, mustJSON(group["AutoRollbackConfiguration"]))
			}
			for _, m := range c.s.resources("AWS::Lambda::EventSourceMapping") {
				p := m["Properties"].(map[string]any)
				if refersTo(p["FunctionName"], fn) {
					t.Errorf("%s %s: an SQS event source targets the function, not its alias: %s", c.name, fn, mustJSON(p["FunctionName"]))
				}
			}
		}
		for _, u := range c.s.resources("AWS::Lambda::Url") {
			p := u["Properties"].(map[string]any)
			if p["Qualifier"] != liveAlias {
				t.Errorf("%s: the Function URL targets %s without the %q qualifier: %s", c.name, mustJSON(p["TargetFunctionArn"]), liveAlias, mustJSON(p))
			}
		}
	}
}
