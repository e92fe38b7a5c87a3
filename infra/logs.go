package main

import (
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssam"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// retainLambdaLogs gives every Lambda log group the stack's functions do
// not create themselves a retention: the CDK's own providers (triggers,
// the default security group's restriction, log retention) and the
// master-secret rotation app log to /aws/lambda/<name>, which Lambda
// creates on first write and keeps forever. The CDK's LogRetention sets the
// retention whether or not the group exists yet.
func (s *Stack) retainLambdaLogs() {
	for _, c := range *s.Node().FindAll(constructs.ConstructOrder_PREORDER) {
		res, ok := c.(awscdk.CfnResource)
		if !ok {
			continue
		}
		switch *res.CfnResourceType() {
		case "AWS::Lambda::Function":
			if s.ownsFunction(res) || strings.HasPrefix(*res.Node().Path(), *s.Node().Path()+"/LogRetention") {
				continue // logs to its own group / sets its own retention
			}
			s.retain(s.idOf(res), awscdk.Fn_Join(jsii.String(""), &[]*string{jsii.String("/aws/lambda/"), res.Ref()}))
		case "AWS::Serverless::Application":
			if name := rotationFunctionName(res); name != "" {
				s.retain(s.idOf(res), jsii.String("/aws/lambda/"+name))
			}
		}
	}
}

// idOf names a construct by its path below the stack, without slashes.
func (s *Stack) idOf(res awscdk.CfnResource) string {
	rel := strings.TrimPrefix(*res.Node().Path(), *s.Node().Path()+"/")
	return strings.ReplaceAll(rel, "/", "")
}

func (s *Stack) retain(id string, group *string) {
	awslogs.NewLogRetention(s.Stack, jsii.String(id+"LogRetention"), &awslogs.LogRetentionProps{
		LogGroupName: group,
		Retention:    retentionDays[s.cfg.LogRetentionDays],
	})
}

// ownsFunction reports whether res is one of the table's functions, which
// log to a group the stack creates with its retention.
func (s *Stack) ownsFunction(res awscdk.CfnResource) bool {
	for _, fn := range s.functions {
		if *fn.Node().DefaultChild().(awscdk.CfnResource).Node().Path() == *res.Node().Path() {
			return true
		}
	}
	return false
}

// rotationFunctionName is the function name the rotation application is
// given, or "" when res is no such application.
func rotationFunctionName(res awscdk.CfnResource) string {
	app, ok := res.(awssam.CfnApplication)
	if !ok {
		return ""
	}
	params, ok := app.Parameters().(map[string]any)
	if !ok {
		return ""
	}
	name, _ := params["functionName"].(string)
	if name == "" {
		if p, ok := params["functionName"].(*string); ok && p != nil {
			name = *p
		}
	}
	return fmt.Sprint(name)
}

// functionLogProtection masks, in the functions' log groups, personal data
// and secrets that should never be logged: a backstop behind the
// handlers' own rule (no chat text, tokens or personal data in logs).
// AWS's managed identifiers cover the UK ones; there is none for an Irish
// PPS number.
func functionLogProtection(stage string) awslogs.DataProtectionPolicy {
	return awslogs.NewDataProtectionPolicy(&awslogs.DataProtectionPolicyProps{
		Name:        jsii.String("regintel-" + stage + "-functions"),
		Description: jsii.String("masks personal data and secrets that reach a function log"),
		Identifiers: &[]awslogs.DataIdentifier{
			awslogs.DataIdentifier_EMAILADDRESS(), awslogs.DataIdentifier_PHONENUMBER_GB(),
			awslogs.DataIdentifier_NATIONALINSURANCENUMBER_GB(), awslogs.DataIdentifier_BANKACCOUNTNUMBER_GB(),
			awslogs.DataIdentifier_CREDITCARDNUMBER(), awslogs.DataIdentifier_AWSSECRETKEY(),
			awslogs.DataIdentifier_PKCSPRIVATEKEY(), awslogs.DataIdentifier_OPENSSHPRIVATEKEY(),
		},
	})
}
