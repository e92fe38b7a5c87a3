package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awscodedeploy"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/interfaces/interfacesawscloudwatch"
	"github.com/aws/jsii-runtime-go"
)

// liveAlias is the alias traffic reaches a function through: its Function
// URL and its SQS event source target the alias, never $LATEST, so a
// deploy publishes a version and CodeDeploy moves the alias to it.
const liveAlias = "live"

// release is a function that serves traffic, published behind its alias.
type release struct {
	alias  awslambda.Alias
	alarms []string // ids (s.alarm's) of the alarms that roll a shift back
}

// publish puts fn behind the live alias and records it for CodeDeploy.
func (s *Stack) publish(id string, fn awslambda.Function) awslambda.Alias {
	alias := awslambda.NewAlias(s.Stack, jsii.String(id+"Live"), &awslambda.AliasProps{
		AliasName: jsii.String(liveAlias),
		Version:   fn.CurrentVersion(),
	})
	s.releases[id] = &release{alias: alias}
	return alias
}

// rollBackOn names alarms (s.alarm ids) that roll back fn's traffic shift.
func (s *Stack) rollBackOn(id string, alarms ...string) {
	if r, ok := s.releases[id]; ok {
		r.alarms = append(r.alarms, alarms...)
	}
}

// deploymentConfig: prod shifts 10 % of the traffic for 5 minutes, then the
// rest, and rolls back if an alarm fires meanwhile; other stages shift at
// once (the alarms still roll back a deploy they catch).
func (s *Stack) deploymentConfig() awscodedeploy.ILambdaDeploymentConfig {
	if s.cfg.IsProd() {
		return awscodedeploy.LambdaDeploymentConfig_CANARY_10PERCENT_5MINUTES()
	}
	return awscodedeploy.LambdaDeploymentConfig_ALL_AT_ONCE()
}

// deploymentGroups adds one CodeDeploy deployment group per published
// function, with its alarms: a deploy whose new version trips them is
// rolled back to the previous version, and the stack update with it.
func (s *Stack) deploymentGroups() {
	for _, id := range sortedKeys(s.releases) {
		r := s.releases[id]
		var alarms []interfacesawscloudwatch.IAlarmRef
		for _, a := range r.alarms {
			if al, ok := s.alarmByID[a]; ok {
				alarms = append(alarms, al)
			}
		}
		group := awscodedeploy.NewLambdaDeploymentGroup(s.Stack, jsii.String(id+"Deployment"), &awscodedeploy.LambdaDeploymentGroupProps{
			Alias:            r.alias,
			DeploymentConfig: s.deploymentConfig(),
			Alarms:           &alarms,
			AutoRollback: &awscodedeploy.AutoRollbackConfig{
				FailedDeployment:  jsii.Bool(true),
				StoppedDeployment: jsii.Bool(true),
				DeploymentInAlarm: jsii.Bool(true),
			},
		})
		s.deployGroups = append(s.deployGroups, group)
	}
}
