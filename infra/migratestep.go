package main

import (
	"math"
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3assets"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// migrateStepDir holds the migrate step's handler (index.mjs) and its test.
const migrateStepDir = "migratestep"

// addMigrateStep runs migrate during the deploy as a custom resource
// (Custom::MigrateStep) once after exist: on create, and on an update that
// publishes a newer migrate version. Its handler (migratestep/index.mjs)
// invokes that version synchronously, so an error fails the deploy, and
// answers a rollback's update without running migrate again. It runs
// outside the VPC: it only calls the Lambda API and CloudFormation's
// response URL.
func (s *Stack) addMigrateStep(id string, migrate awslambda.Function, migrateTimeout time.Duration, after []constructs.Construct) awscdk.CustomResource {
	stepID := strings.TrimSuffix(id, "Function") + "Step"
	logs := awslogs.NewLogGroup(s.Stack, jsii.String(stepID+"Logs"), &awslogs.LogGroupProps{
		Retention:     retentionDays[s.cfg.LogRetentionDays],
		RemovalPolicy: removalPolicy(s.cfg),
	})
	version := migrate.CurrentVersion()
	role := awsiam.NewRole(s.Stack, jsii.String(stepID+"Role"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
		Description: jsii.String("regintel " + s.cfg.Stage + " migrate step: invoke migrate's versions, write its own log group"),
		InlinePolicies: &map[string]awsiam.PolicyDocument{"InvokeMigrateAndLog": awsiam.NewPolicyDocument(&awsiam.PolicyDocumentProps{
			Statements: &[]awsiam.PolicyStatement{
				writeOwnLogGroup(logs),
				awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
					Sid:       jsii.String("InvokeMigrateVersions"),
					Actions:   jsii.Strings("lambda:InvokeFunction"),
					Resources: jsii.Strings(*migrate.FunctionArn() + ":*"),
				}),
			},
		})},
	})
	// The step waits for migrate as long as migrate may run, plus a minute
	// to answer CloudFormation; Lambda's ceiling is 15 minutes.
	timeout := math.Min((migrateTimeout + time.Minute).Seconds(), 900)
	handler := awslambda.NewFunction(s.Stack, jsii.String(stepID+"Function"), &awslambda.FunctionProps{
		Description:  jsii.String("regintel migrate step: runs migrate on create and on a newer version; a rollback's update does not run it"),
		Runtime:      awslambda.Runtime_NODEJS_24_X(),
		Architecture: awslambda.Architecture_ARM_64(),
		Handler:      jsii.String("index.handler"),
		Code: awslambda.Code_FromAsset(jsii.String(migrateStepDir), &awss3assets.AssetOptions{
			Exclude: jsii.Strings("*.test.mjs"),
		}),
		Timeout:       awscdk.Duration_Seconds(jsii.Number(timeout)),
		MemorySize:    jsii.Number(128),
		Role:          role,
		LogGroup:      logs,
		LoggingFormat: awslambda.LoggingFormat_JSON,
	})
	handler.Node().DefaultChild().(awslambda.CfnFunction).OverrideLogicalId(jsii.String(stepID + "Function"))
	s.migrateStepRole = role
	step := awscdk.NewCustomResource(s.Stack, jsii.String(stepID), &awscdk.CustomResourceProps{
		ServiceToken: handler.FunctionArn(),
		ResourceType: jsii.String("Custom::MigrateStep"),
		Properties:   &map[string]any{"HandlerArn": version.FunctionArn()},
	})
	for _, c := range after {
		step.Node().AddDependency(c)
	}
	return step
}
