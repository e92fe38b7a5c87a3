package main

import (
	"strings"

	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

// The managed policy the CDK attaches to its own helper functions' roles
// (log retention); the stack's functions have roles of their own
// (functionRole).
const basicExecPolicy = "Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"

func nag(id, reason string, appliesTo ...string) *cdknag.NagPackSuppression {
	s := &cdknag.NagPackSuppression{Id: jsii.String(id), Reason: jsii.String(reason)}
	if len(appliesTo) > 0 {
		list := make([]interface{}, len(appliesTo))
		for i, a := range appliesTo {
			list[i] = a
		}
		s.AppliesTo = &list
	}
	return s
}

func suppress(c constructs.IConstruct, children bool, s ...*cdknag.NagPackSuppression) {
	cdknag.NagSuppressions_AddResourceSuppressions(c, &s, jsii.Bool(children))
}

// suppressNag records the cdk-nag AwsSolutions findings this design accepts,
// each with its reason, on the narrowest construct that produces it.
// Anything not listed here fails `make lint-infra` and the infra tests.
func suppressNag(s *Stack) {
	for _, role := range s.functionRoles {
		suppress(role, true,
			nag("AwsSolutions-IAM5", "X-Ray PutTraceSegments/PutTelemetryRecords take no resource-level permission, and the VPC network-interface actions (functionRole) are checked by Lambda on any resource, as AWSLambdaVPCAccessExecutionRole grants them. Logs go only to the function's own log group; every data action is scoped to one resource (asserted by TestIAMDataActionsAreScoped and TestFunctionRolesWriteOnlyTheirOwnLogGroup).",
				"Resource::*"),
		)
	}
	if s.migrateStepRole != nil {
		suppress(s.migrateStepRole, true, nag("AwsSolutions-IAM5",
			"The migrate step invokes the migrate version the deploy publishes (lambda:InvokeFunction on that function's qualified ARNs, <fn>:*); a version ARN is known only once it is published.",
			"Resource::<MigrateFunction.Arn>:*"))
	}
	// The CDK LogRetention singleton sets the retention of the RDS log group
	// that Aurora creates itself (we cannot pass a log group to the cluster).
	for _, c := range *s.Node().Children() {
		if strings.HasPrefix(*c.Node().Id(), "LogRetention") {
			suppress(c, true,
				nag("AwsSolutions-IAM4", "CDK LogRetention helper: AWS-maintained basic execution policy for its own logs.", basicExecPolicy),
				nag("AwsSolutions-IAM5", "CDK LogRetention helper: logs:PutRetentionPolicy on log groups Aurora names at creation time.", "Resource::*"),
			)
		}
	}
	if s.edge != nil {
		suppress(s.edge, true,
			nag("AwsSolutions-CFR3", "No CloudFront access logs: the chat function logs every request itself (request id, status, latency) and the URL only answers this distribution; standard logs would need a log bucket that stores client IPs."),
			nag("AwsSolutions-CFR4", "The default *.cloudfront.net certificate cannot raise the viewer TLS minimum; TLSv1.2_2021 is set and applies once a custom domain with an ACM certificate is attached (infra/README.md)."),
			nag("AwsSolutions-CFR1", "No geo restriction: the assistant serves users wherever they are; the JWT decides who may use it."),
			nag("AwsSolutions-CFR2", "The web ACL is optional (wafWebAclArn, a CloudFront-scope ACL in us-east-1 with a rate-based rule; infra/README.md): chat is already bounded by reserved concurrency and the JWT."),
		)
	}
	for _, g := range s.deployGroups {
		suppress(g, true, nag("AwsSolutions-IAM4",
			"CodeDeploy's AWS-maintained role policy for Lambda (AWSCodeDeployRoleForLambdaLimited): it moves this group's alias and reads its alarms; no data-plane access."))
	}
	if s.sweepFailureQueue != nil {
		suppress(s.sweepFailureQueue, true, nag("AwsSolutions-SQS3",
			"This queue is itself the dead-letter queue of the scheduled sweep (Lambda's on-failure destination and the schedule target's dead-letter queue); cdk-nag only recognizes queues named as another queue's DLQ."))
	}
	for _, sec := range s.createdSecrets {
		suppress(sec, true, nag("AwsSolutions-SMG4",
			"Third-party credential (Memgraph password / LLM API key) issued by its provider: rotated there and stored with put-secret-value (infra/README.md). A rotation function would need admin access to the provider, which this stack does not hold."))
	}
	if !s.cfg.DBSecretRotation {
		suppress(s.db.cluster, true, nag("AwsSolutions-SMG4",
			"Master secret rotation is off in this stage (context dbSecretRotation, on by default in prod). Only migrate reads the master secret; the runtime functions sign in with IAM tokens."))
	}
	if !s.cfg.DBDeletionProtection {
		suppress(s.db.cluster, true, nag("AwsSolutions-RDS10",
			"Deletion protection is off (context dbDeletionProtection, on by default in prod): non-prod stages are disposable, and a first prod deploy runs without it so a failed create can roll back (infra/README.md)."))
	}
}
