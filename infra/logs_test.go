package main

import (
	"strings"
	"testing"
)

// Every log group the stack makes or causes keeps logs for the stage's
// retention: the functions' own groups, and the groups Lambda creates for
// the CDK's provider functions and the rotation application.
func TestEveryLogGroupExpires(t *testing.T) {
	for name, s := range map[string]*synthesized{"dev": dev(t), "prod": prod(t)} {
		want := float64(s.stack.cfg.LogRetentionDays)
		for id, g := range s.resources("AWS::Logs::LogGroup") {
			if g["Properties"].(map[string]any)["RetentionInDays"] != want {
				t.Errorf("%s: log group %s keeps logs %v days, want %v", name, id, g["Properties"].(map[string]any)["RetentionInDays"], want)
			}
		}
		retained := map[string]bool{}
		for _, r := range s.resources("Custom::LogRetention") {
			p := r["Properties"].(map[string]any)
			if p["RetentionInDays"] != want {
				t.Errorf("%s: log retention %s, want %v days", name, mustJSON(p), want)
			}
			retained[mustJSON(p["LogGroupName"])] = true
		}
		for id, fn := range s.resources("AWS::Lambda::Function") {
			p, _ := fn["Properties"].(map[string]any)
			if lc, ok := p["LoggingConfig"].(map[string]any); ok && lc["LogGroup"] != nil {
				continue // its own group, checked above
			}
			if strings.HasPrefix(id, "LogRetention") {
				continue // the retention provider sets its own group's retention
			}
			found := false
			for group := range retained {
				if strings.Contains(group, `"/aws/lambda/"`) && strings.Contains(group, `{"Ref":"`+id+`"}`) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: function %s logs to a group that never expires", name, id)
			}
		}
		for id, app := range s.resources("AWS::Serverless::Application") {
			fn, _ := app["Properties"].(map[string]any)["Parameters"].(map[string]any)["functionName"].(string)
			if !retained[mustJSON("/aws/lambda/"+fn)] {
				t.Errorf("%s: the %s application's function %q logs to a group that never expires", name, id, fn)
			}
		}
	}
}

// Every function's log group masks personal data and secrets (a backstop:
// the handlers log none).
func TestFunctionLogGroupsMaskPersonalData(t *testing.T) {
	p := prod(t)
	for _, f := range deployedFunctions(p.stack.cfg, functionSpecs) {
		props := p.props(logicalID(f.Name))
		group := ""
		for id := range p.resources("AWS::Logs::LogGroup") {
			if refersTo(props["LoggingConfig"], id) {
				group = id
			}
		}
		if group == "" {
			t.Errorf("%s: no log group of its own", f.Name)
			continue
		}
		policy := mustJSON(p.props(group)["DataProtectionPolicy"])
		for _, want := range []string{"EmailAddress", "NationalInsuranceNumber-GB", "AwsSecretKey", "Deidentify", "Audit"} {
			if !strings.Contains(policy, want) {
				t.Errorf("%s: log group %s's data protection policy lacks %s: %s", f.Name, group, want, policy)
			}
		}
	}
}
