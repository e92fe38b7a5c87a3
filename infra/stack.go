package main

import (
	"fmt"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscodedeploy"
	"strconv"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudfront"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsec2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// Stack is the whole system in one CloudFormation stack.
type Stack struct {
	awscdk.Stack
	cfg       Config
	net       *network
	db        *database
	memgraph  awssecretsmanager.ISecret
	openai    awssecretsmanager.ISecret
	queues    map[string]awssqs.Queue
	dlqs      map[string]awssqs.Queue
	functions map[string]awslambda.Function
	// functionRoles are the functions' execution roles (functionRole).
	functionRoles []awsiam.Role
	sends         map[string][]string // per function: the deployed queues it sends to
	alarms        []awscloudwatch.Alarm
	alarmByID     map[string]awscloudwatch.Alarm // by s.alarm's id
	releases      map[string]*release            // functions behind their live alias, by logical id

	deployGroups []awscodedeploy.LambdaDeploymentGroup
	topic        awssns.ITopic

	sweepFailureQueue awssqs.Queue // failed scheduled sweeps, after Lambda's retries
	migrateStep       awscdk.CustomResource
	migrateStepRole   awsiam.Role
	edge              awscloudfront.Distribution // CloudFront in front of the chat URL, when on

	createdSecrets []awssecretsmanager.Secret // third-party credentials the operator fills in
}

// NewStack builds the stack for cfg with the given function table.
func NewStack(scope constructs.Construct, id string, props *awscdk.StackProps, cfg Config, specs []functionSpec) (*Stack, error) {
	s := &Stack{
		Stack:     awscdk.NewStack(scope, jsii.String(id), props),
		cfg:       cfg,
		queues:    map[string]awssqs.Queue{},
		dlqs:      map[string]awssqs.Queue{},
		functions: map[string]awslambda.Function{},
		sends:     map[string][]string{},
		alarmByID: map[string]awscloudwatch.Alarm{},
		releases:  map[string]*release{},
	}
	// DBProxyTargetGroup tags are newer than some CloudFormation validators;
	// the target group is not billed, so it goes untagged.
	tagProps := &awscdk.TagProps{ExcludeResourceTypes: jsii.Strings("AWS::RDS::DBProxyTargetGroup")}
	awscdk.Tags_Of(s.Stack).Add(jsii.String("app"), jsii.String("regintel"), tagProps)
	awscdk.Tags_Of(s.Stack).Add(jsii.String("stage"), jsii.String(cfg.Stage), tagProps)

	s.net = newNetwork(s.Stack, cfg)
	s.db = newDatabase(s.Stack, cfg, s.net)
	s.db.allowFrom(s.net.fnSG, "regintel functions")
	s.db.allowDirectFrom(s.net.adminSG, "regintel migrate")
	if cfg.GraphOn() {
		s.memgraph = s.secret("MemgraphSecret", cfg.MemgraphSecretArn,
			`Memgraph credentials for regintel: JSON {"username":"...","password":"..."}`)
	}
	s.openai = s.secret("OpenAISecret", cfg.OpenAISecretArn,
		`LLM API key for regintel: JSON {"apiKey":"..."}`)

	specs = deployedFunctions(cfg, specs)
	for _, q := range deployedQueues(cfg) {
		f, ok := consumerOf(specs, q.Key)
		if !ok {
			return nil, fmt.Errorf("queue %s has no consumer in the function table", q.Key)
		}
		s.addQueue(q, f)
	}
	for _, f := range specs {
		if err := s.addFunction(f); err != nil {
			return nil, err
		}
	}
	s.outputs()
	s.retainLambdaLogs()
	s.databaseAlarms()
	s.proxyAlarms()
	s.natAlarms()
	s.budget()
	s.appAlarms()
	s.dashboard()
	s.deploymentGroups()
	return s, nil
}

// secret imports an existing secret by complete ARN, or creates one whose
// value the operator puts after the first deploy (see README).
func (s *Stack) secret(id, arn, desc string) awssecretsmanager.ISecret {
	if arn != "" {
		return awssecretsmanager.Secret_FromSecretCompleteArn(s.Stack, jsii.String(id), jsii.String(arn))
	}
	sec := awssecretsmanager.NewSecret(s.Stack, jsii.String(id), &awssecretsmanager.SecretProps{
		Description:   jsii.String(desc),
		RemovalPolicy: removalPolicy(s.cfg),
	})
	s.createdSecrets = append(s.createdSecrets, sec)
	return sec
}

func (s *Stack) addQueue(q queueSpec, consumerFn functionSpec) {
	id := queueID(q.Key)
	dlq := awssqs.NewQueue(s.Stack, jsii.String(id+"DLQ"), &awssqs.QueueProps{
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
		Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL:      jsii.Bool(true),
		RemovalPolicy:   removalPolicy(s.cfg),
	})
	queue := awssqs.NewQueue(s.Stack, jsii.String(id+"Queue"), &awssqs.QueueProps{
		VisibilityTimeout: seconds(visibilityTimeout(consumerFn)),
		RetentionPeriod:   awscdk.Duration_Days(jsii.Number(14)),
		Encryption:        awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL:        jsii.Bool(true),
		RemovalPolicy:     removalPolicy(s.cfg),
		DeadLetterQueue:   &awssqs.DeadLetterQueue{Queue: dlq, MaxReceiveCount: jsii.Number(5)},
	})
	// Stable logical ids, like the functions': readable in tests and consoles.
	dlq.Node().DefaultChild().(awssqs.CfnQueue).OverrideLogicalId(jsii.String(id + "DLQ"))
	queue.Node().DefaultChild().(awssqs.CfnQueue).OverrideLogicalId(jsii.String(id + "Queue"))
	s.queues[q.Key], s.dlqs[q.Key] = queue, dlq

	s.alarm(id+"DLQDepth", fmt.Sprintf("regintel %s: messages in the dead-letter queue", q.Key),
		dlq.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{
			Period: awscdk.Duration_Minutes(jsii.Number(5)), Statistic: jsii.String("Maximum"),
		}), 1)
	s.alarm(id+"MessageAge", fmt.Sprintf("regintel %s: oldest message older than %s", q.Key, q.MaxAge),
		queue.MetricApproximateAgeOfOldestMessage(&awscloudwatch.MetricOptions{
			Period: awscdk.Duration_Minutes(jsii.Number(5)), Statistic: jsii.String("Maximum"),
		}), q.MaxAge.Seconds())
}

func (s *Stack) alarm(id, desc string, metric awscloudwatch.IMetric, threshold float64) {
	a := awscloudwatch.NewAlarm(s.Stack, jsii.String(id+"Alarm"), &awscloudwatch.AlarmProps{
		AlarmDescription:   jsii.String(desc),
		Metric:             metric,
		Threshold:          jsii.Number(threshold),
		EvaluationPeriods:  jsii.Number(1),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
	if s.cfg.AlarmTopicArn != "" {
		topic := s.alarmTopic()
		a.AddAlarmAction(awscloudwatchactions.NewSnsAction(topic))
		a.AddOkAction(awscloudwatchactions.NewSnsAction(topic))
	}
	s.alarms = append(s.alarms, a)
	s.alarmByID[id] = a
}

func (s *Stack) alarmTopic() awssns.ITopic {
	if s.topic == nil {
		s.topic = awssns.Topic_FromTopicArn(s.Stack, jsii.String("AlarmTopic"), jsii.String(s.cfg.AlarmTopicArn))
	}
	return s.topic
}

// collectorEndpoint is where the ADOT collector layer receives OTLP/HTTP.
const collectorEndpoint = "http://localhost:4318"

// traceFunction turns X-Ray Active on, and runs the collector layer, only
// in a function that emits spans and only when the stack's tracing is on:
// Active tracing on a function that emits nothing adds cost and no detail.
func (s *Stack) traceFunction(f functionSpec, props *awslambda.FunctionProps) {
	if !f.Spans || !s.cfg.Tracing {
		return
	}
	props.Tracing = awslambda.Tracing_ACTIVE
	(*props.Environment)["TRACING"] = jsii.String("on")
	(*props.Environment)["OTEL_EXPORTER_OTLP_ENDPOINT"] = jsii.String(collectorEndpoint)
	(*props.Environment)["TRACING_SAMPLE_RATIO"] = jsii.String(strconv.FormatFloat(s.cfg.TracingSampleRatio, 'g', -1, 64))
	layer := awslambda.LayerVersion_FromLayerVersionArn(s.Stack, jsii.String(logicalID(f.Name)+"Collector"), jsii.String(s.cfg.CollectorLayerArn))
	props.Layers = &[]awslambda.ILayerVersion{layer}
}

func (s *Stack) addFunction(f functionSpec) error {
	cfg := s.cfg
	dir, err := cfg.BootstrapDir(f.binary())
	if err != nil {
		return err
	}
	if f.DB != dbNone && cfg.DBCaBundle != "" {
		if err := cfg.CheckCaBundle(dir); err != nil {
			return err
		}
	}
	env := map[string]string{"LOG_FORMAT": "json", "STAGE": cfg.Stage}
	sg := s.net.fnSG
	switch f.DB {
	case dbApp, dbSweep:
		env["DB_HOST"] = *s.db.host()
		env["DB_USER"] = dbUserOf(cfg, f.DB)
		env["DB_IAM_AUTH"] = "true"
	case dbAdmin:
		sg = s.net.adminSG
		env["DB_HOST"] = *s.db.cluster.ClusterEndpoint().Hostname()
		env["DB_USER"] = cfg.DBMasterUser
		env["DB_IAM_AUTH"] = "false"
		env["DB_SECRET_ARN"] = *s.db.cluster.Secret().SecretArn()
		// The login roles migrate creates and grants rds_iam.
		env["DB_APP_USER"] = cfg.DBAppUser
		env["DB_SWEEP_USER"] = cfg.DBSweepUser
	}
	if f.DB != dbNone {
		// Prepared statements pin a client to one connection behind RDS Proxy.
		env["DB_STATEMENT_CACHE"] = strconv.FormatBool(!cfg.DBProxy)
		env["DB_PORT"] = strconv.Itoa(dbPort)
		env["DB_NAME"] = cfg.DBName
		env["DB_SSLMODE"], env["DB_SSLROOTCERT"] = s.db.tlsSettings(cfg, f.DB != dbAdmin)
	}
	graph := f.Graph && cfg.GraphOn()
	if graph {
		env["MEMGRAPH_URI"] = cfg.MemgraphURI
		env["MEMGRAPH_SECRET_ARN"] = *s.memgraph.SecretArn()
		// Memgraph is the only graph the stack connects to: the dialect is
		// not left to detection.
		env["GRAPH_DIALECT"] = "memgraph"
	}
	if f.LLM {
		env["OPENAI_BASE_URL"] = "" // declared so `sam local` can point it at a local model server
		env["OPENAI_SECRET_ARN"] = *s.openai.SecretArn()
		env["LLM_PROVIDER"] = cfg.LLMProvider
		env["LLM_MODEL"] = cfg.LLMModel
	}
	sends := s.deployedSends(f)
	for _, key := range sends {
		env[queueEnv(key)] = *s.queues[key].QueueUrl()
	}
	if f.Consumes != nil {
		env[queueEnv(f.Consumes.Queue)] = *s.queues[f.Consumes.Queue].QueueUrl()
	}
	if f.Env != nil {
		for k, v := range f.Env(cfg) {
			env[k] = v
		}
	}

	id := logicalID(f.Name)
	logs := awslogs.NewLogGroup(s.Stack, jsii.String(id+"Logs"), &awslogs.LogGroupProps{
		Retention:            retentionDays[cfg.LogRetentionDays],
		RemovalPolicy:        removalPolicy(cfg),
		DataProtectionPolicy: functionLogProtection(cfg.Stage),
	})
	props := &awslambda.FunctionProps{
		Description:           jsii.String(f.Description),
		Runtime:               awslambda.Runtime_PROVIDED_AL2023(),
		Architecture:          awslambda.Architecture_ARM_64(),
		Handler:               jsii.String("bootstrap"),
		Code:                  awslambda.Code_FromAsset(jsii.String(dir), nil),
		Timeout:               seconds(f.Timeout),
		MemorySize:            jsii.Number(f.MemoryMB),
		Environment:           jsiiEnv(env),
		Vpc:                   s.net.vpc,
		VpcSubnets:            s.net.appSubnet,
		SecurityGroups:        &[]awsec2.ISecurityGroup{sg},
		LoggingFormat:         awslambda.LoggingFormat_JSON,
		ApplicationLogLevelV2: awslambda.ApplicationLogLevel_INFO,
		// INFO keeps the platform's REPORT lines (duration, max memory, init duration).
		SystemLogLevelV2: awslambda.SystemLogLevel_INFO,
		LogGroup:         logs,
		Role:             s.functionRole(id, logs),
	}
	s.traceFunction(f, props)
	if f.URL && cfg.ChatReservedConc > 0 {
		props.ReservedConcurrentExecutions = jsii.Number(cfg.ChatReservedConc)
	}
	fn := awslambda.NewFunction(s.Stack, jsii.String(id), props)
	fn.Node().DefaultChild().(awslambda.CfnFunction).OverrideLogicalId(jsii.String(id))
	s.functions[f.Name] = fn
	s.sends[f.Name] = sends

	// Grants: each scoped to the one resource it names.
	switch f.DB {
	case dbApp, dbSweep:
		s.db.grantConnect(fn, dbUserOf(cfg, f.DB))
	case dbAdmin:
		s.db.cluster.Secret().GrantRead(fn, nil)
	}
	if graph {
		s.memgraph.GrantRead(fn, nil)
	}
	if f.LLM {
		s.openai.GrantRead(fn, nil)
	}
	for _, key := range sends {
		s.queues[key].GrantSendMessages(fn)
	}

	if f.Consumes != nil {
		c := f.Consumes
		props := &awslambdaeventsources.SqsEventSourceProps{
			BatchSize:               jsii.Number(c.BatchSize),
			MaxConcurrency:          jsii.Number(c.MaxConcurrency),
			ReportBatchItemFailures: jsii.Bool(true),
		}
		if c.BatchingWindow > 0 {
			props.MaxBatchingWindow = seconds(c.BatchingWindow)
		}
		s.publish(id, fn).AddEventSource(awslambdaeventsources.NewSqsEventSource(s.queues[c.Queue], props))
		s.rollBackOn(id, id+"Errors")
		s.alarm(id+"Errors", fmt.Sprintf("regintel %s: invocation errors", f.Name),
			fn.MetricErrors(&awscloudwatch.MetricOptions{Period: awscdk.Duration_Minutes(jsii.Number(5))}), 5)
	}
	if f.URL {
		if err := s.addFunctionURL(s.publish(id, fn)); err != nil {
			return err
		}
		s.chatAlarms(fn, f)
		s.rollBackOn(id, id+"Errors", id+"Throttles", "ChatFirstByteP99")
	}
	if f.Scheduled {
		s.scheduleFunction(fn, id)
	}
	if f.GraphSetup {
		// Never run by the deploy: Memgraph may not be reachable yet (the
		// peering's return route is made on its side after the first
		// deploy), and a deploy, or its rollback, must not depend on it.
		// `make graph-setup` invokes it by this name.
		awscdk.NewCfnOutput(s.Stack, jsii.String("GraphSetupFunctionName"), &awscdk.CfnOutputProps{
			Value:       fn.FunctionName(),
			Description: jsii.String("the graph step: make graph-setup STAGE=<stage> once Memgraph is reachable, and after a schema or dataset change"),
		})
	}
	if f.Migrations {
		// The security groups carry the ingress/egress rules migrate needs.
		after := []constructs.Construct{s.db.cluster, s.net.dbSG, s.net.adminSG}
		if s.db.proxy != nil {
			after = append(after, s.db.proxy)
		}
		// Invoked synchronously by a custom resource after the cluster (and
		// its writer instance) exist; a function error fails the deployment
		// and rolls it back. Runs again when a newer version is published,
		// never on the rollback's update (migratestep/index.mjs).
		s.migrateStep = s.addMigrateStep(id, fn, f.Timeout, after)
	}
	return nil
}

func (s *Stack) addFunctionURL(fn awslambda.Alias) error {
	auth := awslambda.FunctionUrlAuthType_NONE
	if s.cfg.ChatAuthType == "AWS_IAM" {
		auth = awslambda.FunctionUrlAuthType_AWS_IAM
	}
	opts := &awslambda.FunctionUrlOptions{
		AuthType:   auth,
		InvokeMode: awslambda.InvokeMode_RESPONSE_STREAM,
	}
	if len(s.cfg.CorsOrigins) > 0 {
		cors, err := functionURLCors(s.cfg, corsFile)
		if err != nil {
			return err
		}
		opts.Cors = cors
	}
	url := fn.AddFunctionUrl(opts)
	awscdk.NewCfnOutput(s.Stack, jsii.String("ChatFunctionUrl"), &awscdk.CfnOutputProps{
		Value: url.Url(), Description: jsii.String("The chat Function URL (behind CloudFront when ChatUrl is output)"),
	})
	if s.cfg.CloudFront {
		s.edge = s.addEdge(fn, url)
	}
	if auth == awslambda.FunctionUrlAuthType_NONE {
		awscdk.Annotations_Of(url).AddWarningV2(jsii.String("regintel:publicChatUrl"), jsii.String(
			"the chat Function URL has auth NONE: anyone can call it, each request is billed and holds a reserved slot (the app still verifies the JWT)"), nil)
	}
	return nil
}

// deployedSends are the queues f sends to that the stack has.
func (s *Stack) deployedSends(f functionSpec) []string {
	var out []string
	for _, key := range f.Sends {
		if _, ok := s.queues[key]; ok {
			out = append(out, key)
		}
	}
	return out
}

func (s *Stack) outputs() {
	out := func(id string, v *string, desc string) {
		awscdk.NewCfnOutput(s.Stack, jsii.String(id), &awscdk.CfnOutputProps{Value: v, Description: jsii.String(desc)})
	}
	for _, q := range deployedQueues(s.cfg) {
		out(q.OutputKey, s.queues[q.Key].QueueUrl(), q.Key+" queue")
		out(q.OutputKey[:len(q.OutputKey)-len("QueueUrl")]+"DLQUrl", s.dlqs[q.Key].QueueUrl(), q.Key+" dead-letter queue")
	}
	out("DatabaseEndpoint", s.db.host(), "Host the functions connect to (the proxy when enabled)")
	out("DatabaseClusterEndpoint", s.db.cluster.ClusterEndpoint().Hostname(), "Aurora writer endpoint")
	out("DatabaseSecretArn", s.db.cluster.Secret().SecretArn(), "Master credentials (migrate only)")
	if s.memgraph != nil {
		out("MemgraphSecretArn", s.memgraph.SecretArn(), "Put the Memgraph credentials here")
	}
	out("OpenAISecretArn", s.openai.SecretArn(), "Put the LLM API key here")
}

// dbUserOf is the role a function signs in as with an IAM token.
func dbUserOf(cfg Config, access dbAccess) string {
	if access == dbSweep {
		return cfg.DBSweepUser
	}
	return cfg.DBAppUser
}

func queueEnv(key string) string {
	for _, q := range queueSpecs {
		if q.Key == key {
			return q.EnvVar
		}
	}
	panic("unknown queue " + key)
}

func seconds(d time.Duration) awscdk.Duration {
	return awscdk.Duration_Seconds(jsii.Number(d.Seconds()))
}

// declaredEmpty are variables the template declares even when empty:
// `sam local --env-vars` can only set variables the template declares.
var declaredEmpty = map[string]bool{"OPENAI_BASE_URL": true}

// jsiiEnv converts env, leaving out unset (empty) values but the declared ones.
func jsiiEnv(env map[string]string) *map[string]*string {
	out := make(map[string]*string, len(env))
	for k, v := range env {
		if v != "" || declaredEmpty[k] {
			out[k] = jsii.String(v)
		}
	}
	return &out
}
