package main

import (
	"slices"
	"testing"
)

// TestFunctionRolesWriteOnlyTheirOwnLogGroup: every function of the table
// (and the migrate step's handler) has a role of its own, with no managed policy (AWSLambdaBasicExecutionRole
// and AWSLambdaVPCAccessExecutionRole grant logs on every group), and every
// logs statement reachable from that role is CreateLogStream/PutLogEvents on
// the function's own log group.
func TestFunctionRolesWriteOnlyTheirOwnLogGroup(t *testing.T) {
	for name, s := range map[string]*synthesized{"dev": dev(t), "prod": prod(t)} {
		policies := s.resources("AWS::IAM::Policy")
		roleOwner := map[string]string{}
		checked := 0
		for fnID, fn := range s.resources("AWS::Lambda::Function") {
			p := fn["Properties"].(map[string]any)
			logging, _ := p["LoggingConfig"].(map[string]any)
			groupRef, _ := logging["LogGroup"].(map[string]any)
			group, _ := groupRef["Ref"].(string)
			if group == "" {
				continue // a CDK helper function (trigger provider, log retention)
			}
			checked++
			getAtt, _ := p["Role"].(map[string]any)["Fn::GetAtt"].([]any)
			if len(getAtt) != 2 {
				t.Errorf("%s: %s's role is not one of the stack's: %s", name, fnID, mustJSON(p["Role"]))
				continue
			}
			roleID := getAtt[0].(string)
			if other, dup := roleOwner[roleID]; dup {
				t.Errorf("%s: %s and %s share role %s", name, fnID, other, roleID)
			}
			roleOwner[roleID] = fnID
			role := s.props(roleID)
			if managed := role["ManagedPolicyArns"]; managed != nil {
				t.Errorf("%s: %s's role has managed policies %s", name, fnID, mustJSON(managed))
			}
			var statements []map[string]any
			for _, pol := range asList(role["Policies"]) {
				for _, st := range asList(pol.(map[string]any)["PolicyDocument"].(map[string]any)["Statement"]) {
					statements = append(statements, st.(map[string]any))
				}
			}
			for _, pol := range policies {
				pp := pol["Properties"].(map[string]any)
				if !slices.ContainsFunc(asList(pp["Roles"]), func(r any) bool { return mustJSON(r) == mustJSON(map[string]any{"Ref": roleID}) }) {
					continue
				}
				for _, st := range asList(pp["PolicyDocument"].(map[string]any)["Statement"]) {
					statements = append(statements, st.(map[string]any))
				}
			}
			ownGroup := mustJSON([]any{map[string]any{"Fn::GetAtt": []any{group, "Arn"}}})
			var writes []string
			for _, st := range statements {
				for _, a := range asList(st["Action"]) {
					action, _ := a.(string)
					if len(action) < 5 || action[:5] != "logs:" {
						continue
					}
					if action != "logs:CreateLogStream" && action != "logs:PutLogEvents" {
						t.Errorf("%s: %s's role may %s", name, fnID, action)
					}
					if got := mustJSON(asList(st["Resource"])); got != ownGroup {
						t.Errorf("%s: %s's role may %s on %s, want only its log group %s", name, fnID, action, got, group)
					}
					writes = append(writes, action)
				}
			}
			slices.Sort(writes)
			if !slices.Equal(writes, []string{"logs:CreateLogStream", "logs:PutLogEvents"}) {
				t.Errorf("%s: %s's role writes logs with %v, want CreateLogStream and PutLogEvents once each", name, fnID, writes)
			}
		}
		// The table's functions, and the migrate step's handler.
		if want := len(s.stack.functions) + 1; checked != want || want == 1 {
			t.Errorf("%s: checked %d functions with their own log group, the stack has %d", name, checked, want)
		}
	}
}
