package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/jsii-runtime-go"
)

// logWriteActions are all a function needs to write its logs into a log
// group the stack created (so no logs:CreateLogGroup).
var logWriteActions = []string{"logs:CreateLogStream", "logs:PutLogEvents"}

// eniActions are the network-interface actions Lambda takes with the
// execution role of a function in a VPC: the EC2 half of
// AWSLambdaVPCAccessExecutionRole, whose logs half grants every log group.
// Lambda checks them at create time on any resource, and the Describe
// actions take no resource-level permission.
var eniActions = []string{
	"ec2:CreateNetworkInterface", "ec2:DescribeNetworkInterfaces", "ec2:DescribeSubnets",
	"ec2:DeleteNetworkInterface", "ec2:AssignPrivateIpAddresses", "ec2:UnassignPrivateIpAddresses",
}

// writeOwnLogGroup lets a role write its own log group, and no other.
func writeOwnLogGroup(logs awslogs.ILogGroup) awsiam.PolicyStatement {
	return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("WriteOwnLogGroup"),
		Actions:   jsii.Strings(logWriteActions...),
		Resources: jsii.Strings(*logs.LogGroupArn()),
	})
}

// functionRole is a function's execution role in place of the managed
// basic-execution and VPC-access policies: it may write only its own log
// group, and manage the function's network interfaces. Both sit in the
// role itself, so they hold before the function is created; the data
// grants (queues, secrets, rds-db:connect) join it as scoped statements.
func (s *Stack) functionRole(id string, logs awslogs.ILogGroup) awsiam.Role {
	doc := awsiam.NewPolicyDocument(&awsiam.PolicyDocumentProps{
		Statements: &[]awsiam.PolicyStatement{
			writeOwnLogGroup(logs),
			awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Sid:       jsii.String("VpcNetworkInterfaces"),
				Actions:   jsii.Strings(eniActions...),
				Resources: jsii.Strings("*"),
			}),
		},
	})
	role := awsiam.NewRole(s.Stack, jsii.String(id+"Role"), &awsiam.RoleProps{
		AssumedBy:      awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
		Description:    jsii.String("regintel " + s.cfg.Stage + " " + id + ": its own log group, its network interfaces, and the grants of its table entry"),
		InlinePolicies: &map[string]awsiam.PolicyDocument{"LogsAndNetwork": doc},
	})
	s.functionRoles = append(s.functionRoles, role)
	return role
}
