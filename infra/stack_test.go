package main

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

func TestChatFunctionURL(t *testing.T) {
	d := dev(t)
	assert(t, "dev: streamed URL, auth NONE (the app verifies the JWT), no CORS", func() {
		d.tmpl.HasResourceProperties(jsii.String("AWS::Lambda::Url"), &map[string]any{
			"InvokeMode":        "RESPONSE_STREAM",
			"AuthType":          "NONE",
			"TargetFunctionArn": map[string]any{"Fn::GetAtt": []any{"ChatFunction", "Arn"}},
			"Cors":              assertions.Match_Absent(),
		})
	})
	assert(t, "dev: one Function URL", func() { d.tmpl.ResourceCountIs(jsii.String("AWS::Lambda::Url"), jsii.Number(1)) })

	p := prod(t)
	assert(t, "prod: AWS_IAM auth and CORS origins from context", func() {
		p.tmpl.HasResourceProperties(jsii.String("AWS::Lambda::Url"), &map[string]any{
			"InvokeMode": "RESPONSE_STREAM",
			"AuthType":   "AWS_IAM",
			"Cors": assertions.Match_ObjectLike(&map[string]any{
				"AllowOrigins": []any{"https://app.example.com", "https://admin.example.com"},
			}),
		})
	})
	// What the browser app needs, per the routes: PATCH (rename, archive),
	// the stream and resume headers, the user's token next to SigV4's, and
	// the request id readable.
	var urlCors map[string]any
	for _, u := range p.resources("AWS::Lambda::Url") {
		urlCors, _ = u["Properties"].(map[string]any)["Cors"].(map[string]any)
	}
	for key, want := range map[string][]string{
		"AllowMethods":  {"GET", "POST", "DELETE", "PATCH"},
		"AllowHeaders":  {"authorization", "content-type", "last-event-id", "x-request-id", "x-stream-protocol", "x-user-authorization", "x-amz-date", "x-amz-security-token"},
		"ExposeHeaders": {"x-request-id"},
	} {
		got := strings.ToLower(mustJSON(urlCors[key]))
		for _, w := range want {
			if !strings.Contains(got, `"`+strings.ToLower(w)+`"`) {
				t.Errorf("prod URL CORS %s = %s: lacks %s", key, got, w)
			}
		}
	}
	// Every method and header of cors.json (generated from the routes table) is there.
	policy, err := readCorsPolicy(corsFile)
	if err != nil {
		t.Fatal(err)
	}
	for key, list := range map[string][]string{"AllowMethods": policy.AllowMethods, "AllowHeaders": policy.AllowHeaders, "ExposeHeaders": policy.ExposeHeaders} {
		for _, w := range list {
			if !strings.Contains(strings.ToLower(mustJSON(urlCors[key])), `"`+strings.ToLower(w)+`"`) {
				t.Errorf("prod URL CORS %s lacks %s from %s", key, w, corsFile)
			}
		}
	}
	// With NONE, the URL is public by design; the permission must say so and
	// the app must be configured to verify tokens.
	env := d.props("ChatFunction")["Environment"].(map[string]any)["Variables"].(map[string]any)
	if env["AUTH_MODE"] != "jwt" || env["JWT_HEADER"] != "Authorization" {
		t.Errorf("chat AUTH_MODE = %v, JWT_HEADER = %v, want jwt from Authorization", env["AUTH_MODE"], env["JWT_HEADER"])
	}
	penv := p.props("ChatFunction")["Environment"].(map[string]any)["Variables"].(map[string]any)
	// IAM auth: SigV4 owns Authorization, the user's token comes in X-User-Authorization.
	for k, want := range map[string]string{"JWT_HEADER": "X-User-Authorization", "JWT_JWKS_URL": "https://id.example.com/.well-known/jwks.json", "JWT_ISSUER": "https://id.example.com/", "JWT_AUDIENCE": "regintel", "JWT_TENANT_CLAIM": "tenant_id"} {
		if penv[k] != want {
			t.Errorf("prod chat %s = %v, want %s", k, penv[k], want)
		}
	}
	if _, ok := p.json["Outputs"].(map[string]any)["ChatFunctionUrl"]; !ok {
		t.Error("no ChatFunctionUrl output")
	}
}

func TestSQSEventSources(t *testing.T) {
	d := memgraphBySG(t)
	n := 0
	for _, f := range functionSpecs {
		if f.Consumes == nil {
			continue
		}
		n++
		c := f.Consumes
		props := map[string]any{
			// The live alias (see release.go): <function name>:live.
			"FunctionName": map[string]any{"Fn::Join": []any{"", []any{
				map[string]any{"Fn::Select": []any{6, map[string]any{"Fn::Split": []any{":", map[string]any{"Ref": aliasID(t, d, logicalID(f.Name))}}}}},
				":" + liveAlias,
			}}},
			"EventSourceArn":        map[string]any{"Fn::GetAtt": []any{queueID(c.Queue) + "Queue", "Arn"}},
			"FunctionResponseTypes": []any{"ReportBatchItemFailures"},
			"BatchSize":             c.BatchSize,
			"ScalingConfig":         map[string]any{"MaximumConcurrency": c.MaxConcurrency},
		}
		if c.BatchingWindow > 0 {
			props["MaximumBatchingWindowInSeconds"] = int(c.BatchingWindow.Seconds())
		}
		assert(t, f.Name+" event source", func() {
			d.tmpl.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), &props)
		})
	}
	if n != len(queueSpecs) {
		t.Errorf("%d consumers for %d queues", n, len(queueSpecs))
	}
	assert(t, "one mapping per queue", func() {
		d.tmpl.ResourceCountIs(jsii.String("AWS::Lambda::EventSourceMapping"), jsii.Number(len(queueSpecs)))
	})
}

func TestQueuesHaveDLQsAndAlarms(t *testing.T) {
	d := memgraphBySG(t)
	const fourteenDays = 14 * 24 * 3600
	for _, q := range queueSpecs {
		id := queueID(q.Key)
		qp, dp := d.props(id+"Queue"), d.props(id+"DLQ")
		if qp == nil || dp == nil {
			t.Fatalf("%s: queue or DLQ missing", q.Key)
		}
		rp, _ := qp["RedrivePolicy"].(map[string]any)
		if !refersTo(rp["deadLetterTargetArn"], id+"DLQ") || rp["maxReceiveCount"] != float64(5) {
			t.Errorf("%s: redrive policy %s, want DLQ %sDLQ after 5 receives", q.Key, mustJSON(rp), id)
		}
		for name, p := range map[string]map[string]any{"queue": qp, "DLQ": dp} {
			if p["MessageRetentionPeriod"] != float64(fourteenDays) {
				t.Errorf("%s %s: retention %v, want 14 days", q.Key, name, p["MessageRetentionPeriod"])
			}
			if p["SqsManagedSseEnabled"] != true {
				t.Errorf("%s %s: not encrypted at rest", q.Key, name)
			}
		}
		f, _ := consumerOf(functionSpecs, q.Key)
		vis, _ := qp["VisibilityTimeout"].(float64)
		if vis < 6*f.Timeout.Seconds() {
			t.Errorf("%s: visibility timeout %vs < 6 x %s timeout (%vs)", q.Key, vis, f.Name, f.Timeout.Seconds())
		}
		for _, target := range []string{id + "Queue", id + "DLQ"} {
			assert(t, target+" SSL-only policy", func() {
				d.tmpl.HasResourceProperties(jsii.String("AWS::SQS::QueuePolicy"), &map[string]any{
					"Queues": []any{map[string]any{"Ref": target}},
					"PolicyDocument": assertions.Match_ObjectLike(&map[string]any{
						"Statement": assertions.Match_ArrayWith(&[]any{assertions.Match_ObjectLike(&map[string]any{
							"Effect":    "Deny",
							"Condition": map[string]any{"Bool": map[string]any{"aws:SecureTransport": "false"}},
						})}),
					}),
				})
			})
		}
		assert(t, q.Key+" DLQ depth alarm", func() {
			d.tmpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), &map[string]any{
				"MetricName": "ApproximateNumberOfMessagesVisible",
				"Dimensions": []any{map[string]any{"Name": "QueueName", "Value": map[string]any{"Fn::GetAtt": []any{id + "DLQ", "QueueName"}}}},
				"Threshold":  1,
			})
		})
		assert(t, q.Key+" message age alarm", func() {
			d.tmpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), &map[string]any{
				"MetricName": "ApproximateAgeOfOldestMessage",
				"Dimensions": []any{map[string]any{"Name": "QueueName", "Value": map[string]any{"Fn::GetAtt": []any{id + "Queue", "QueueName"}}}},
				"Threshold":  q.MaxAge.Seconds(),
			})
		})
		if _, ok := d.json["Outputs"].(map[string]any)[q.OutputKey]; !ok {
			t.Errorf("no %s output", q.OutputKey)
		}
	}
	// Alarms notify the topic from context when one is given.
	for id, a := range prod(t).resources("AWS::CloudWatch::Alarm") {
		if !strings.Contains(mustJSON(a["Properties"].(map[string]any)["AlarmActions"]), "regintel-alarms") {
			t.Errorf("prod alarm %s does not notify the alarm topic", id)
		}
	}
}

func TestMemgraphEgressFromContext(t *testing.T) {
	boltEgress := func(s *synthesized) []map[string]any {
		var out []map[string]any
		for _, sg := range s.resources("AWS::EC2::SecurityGroup") {
			for _, r := range asList(sg["Properties"].(map[string]any)["SecurityGroupEgress"]) {
				if m, ok := r.(map[string]any); ok && m["FromPort"] == float64(7687) {
					out = append(out, m)
				}
			}
		}
		for _, r := range s.resources("AWS::EC2::SecurityGroupEgress") {
			if m := r["Properties"].(map[string]any); m["FromPort"] == float64(7687) {
				out = append(out, m)
			}
		}
		return out
	}
	if got := boltEgress(dev(t)); len(got) != 0 {
		t.Errorf("dev without memgraphUri has Bolt egress: %s", mustJSON(got))
	}
	p := prod(t)
	assert(t, "prod: functions' SG egress to the Memgraph host:7687", func() {
		p.tmpl.HasResourceProperties(jsii.String("AWS::EC2::SecurityGroup"), &map[string]any{
			"GroupDescription": assertions.Match_StringLikeRegexp(jsii.String("^regintel functions")),
			"SecurityGroupEgress": assertions.Match_ArrayWith(&[]any{assertions.Match_ObjectLike(&map[string]any{
				"CidrIp": "10.50.1.10/32", "FromPort": 7687, "ToPort": 7687, "IpProtocol": "tcp",
			})}),
		})
	})
	for _, e := range boltEgress(p) {
		if e["CidrIp"] != "10.50.1.10/32" {
			t.Errorf("Bolt egress to %v, want only the Memgraph host 10.50.1.10/32", e["CidrIp"])
		}
	}
	env := p.props("ResolveConceptsFunction")["Environment"].(map[string]any)["Variables"].(map[string]any)
	if env["MEMGRAPH_URI"] != "bolt://10.50.1.10:7687" || env["MEMGRAPH_SECRET_ARN"] == nil {
		t.Errorf("resolve-concepts Memgraph env: %s", mustJSON(env))
	}
	for k := range env {
		if strings.Contains(strings.ToUpper(k), "PASSWORD") || k == "OPENAI_API_KEY" {
			t.Errorf("credential in plain env: %s", k)
		}
	}
	// Peering: routes to the Memgraph CIDR over the peering connection.
	assert(t, "peering to the Memgraph VPC", func() {
		p.tmpl.HasResourceProperties(jsii.String("AWS::EC2::VPCPeeringConnection"), &map[string]any{"PeerVpcId": "vpc-0123456789abcdef0"})
	})
	assert(t, "route to memgraphCidr over the peering", func() {
		p.tmpl.HasResourceProperties(jsii.String("AWS::EC2::Route"), &map[string]any{
			"DestinationCidrBlock": "10.50.0.0/16", "VpcPeeringConnectionId": map[string]any{"Ref": "MemgraphPeering"},
		})
	})

	sg := memgraphBySG(t)
	got := boltEgress(sg)
	if len(got) != 2 { // functions + migrate
		t.Fatalf("Bolt egress rules with memgraphSecurityGroupId: %s", mustJSON(got))
	}
	for _, e := range got {
		if e["DestinationSecurityGroupId"] != "sg-0123456789abcdef0" {
			t.Errorf("Bolt egress %s, want to sg-0123456789abcdef0", mustJSON(e))
		}
	}
}

func TestDatabaseNotPubliclyReachable(t *testing.T) {
	for name, s := range map[string]*synthesized{"dev": dev(t), "prod": prod(t), "existing-vpc": existingVpc(t)} {
		assert(t, name+": instances not publicly accessible", func() {
			s.tmpl.AllResourcesProperties(jsii.String("AWS::RDS::DBInstance"), &map[string]any{"PubliclyAccessible": false})
		})
		assert(t, name+": encrypted, IAM auth", func() {
			s.tmpl.HasResourceProperties(jsii.String("AWS::RDS::DBCluster"), &map[string]any{
				"Engine": "aurora-postgresql", "StorageEncrypted": true, "EnableIAMDatabaseAuthentication": true,
				"ServerlessV2ScalingConfiguration": assertions.Match_ObjectLike(&map[string]any{"MinCapacity": assertions.Match_AnyValue()}),
				"BackupRetentionPeriod":            assertions.Match_AnyValue(),
				"MasterUserPassword":               assertions.Match_AnyValue(),
			})
		})
		// Subnets of the database: none public.
		public := map[string]bool{}
		for id, sn := range s.resources("AWS::EC2::Subnet") {
			if strings.Contains(mustJSON(sn), `"Value":"Public"`) || sn["Properties"].(map[string]any)["MapPublicIpOnLaunch"] == true {
				public[id] = true
			}
		}
		for id, g := range s.resources("AWS::RDS::DBSubnetGroup") {
			ids := asList(g["Properties"].(map[string]any)["SubnetIds"])
			if len(ids) == 0 {
				t.Errorf("%s: subnet group %s has no subnets", name, id)
			}
			for _, sn := range ids {
				for pub := range public {
					if refersTo(sn, pub) {
						t.Errorf("%s: database subnet group %s uses public subnet %s", name, id, pub)
					}
				}
			}
		}
		// Ingress to the database (or proxy) only from security groups, on the DB port.
		for id, r := range s.resources("AWS::EC2::SecurityGroupIngress") {
			p := r["Properties"].(map[string]any)
			if p["CidrIp"] != nil || p["CidrIpv6"] != nil {
				t.Errorf("%s: ingress %s from an address range: %s", name, id, mustJSON(p))
			}
		}
		for id, sg := range s.resources("AWS::EC2::SecurityGroup") {
			if in := sg["Properties"].(map[string]any)["SecurityGroupIngress"]; in != nil {
				t.Errorf("%s: security group %s has inline ingress %s", name, id, mustJSON(in))
			}
		}
	}
	sub := existingVpc(t).resources("AWS::RDS::DBSubnetGroup")
	for _, g := range sub {
		if got := mustJSON(g["Properties"].(map[string]any)["SubnetIds"]); got != `["subnet-0db1","subnet-0db2"]` {
			t.Errorf("existing VPC: DB subnets %s, want the isolated ones from context", got)
		}
	}
	if n := len(existingVpc(t).resources("AWS::EC2::VPC")); n != 0 {
		t.Errorf("existing VPC: %d VPCs created", n)
	}
	assert(t, "prod: deletion protection", func() {
		prod(t).tmpl.HasResourceProperties(jsii.String("AWS::RDS::DBCluster"), &map[string]any{"DeletionProtection": true})
	})
	assert(t, "dev: no deletion protection", func() {
		dev(t).tmpl.HasResourceProperties(jsii.String("AWS::RDS::DBCluster"), &map[string]any{"DeletionProtection": false})
	})
	assert(t, "prod: RDS Proxy with TLS and IAM", func() {
		prod(t).tmpl.HasResourceProperties(jsii.String("AWS::RDS::DBProxy"), &map[string]any{
			"RequireTLS": true, "DefaultAuthScheme": "IAM_AUTH", "DBProxyName": "regintel-prod",
		})
	})
	for _, out := range []string{"DatabaseEndpoint", "DatabaseSecretArn"} {
		if _, ok := dev(t).json["Outputs"].(map[string]any)[out]; !ok {
			t.Errorf("no %s output", out)
		}
	}
}

// Actions that cannot be scoped to a resource: allowed on "*" and nothing else.
var unscopable = map[string]bool{
	"xray:PutTraceSegments": true, "xray:PutTelemetryRecords": true,
	// CDK LogRetention helper (Aurora names its log group itself).
	"logs:PutRetentionPolicy": true, "logs:DeleteRetentionPolicy": true,
	// A VPC function's network interfaces (functionRole): Lambda checks
	// them on any resource; the Describe actions take no resource.
	"ec2:CreateNetworkInterface": true, "ec2:DescribeNetworkInterfaces": true, "ec2:DescribeSubnets": true,
	"ec2:DeleteNetworkInterface": true, "ec2:AssignPrivateIpAddresses": true, "ec2:UnassignPrivateIpAddresses": true,
}

func TestIAMDataActionsAreScoped(t *testing.T) {
	for name, s := range map[string]*synthesized{"dev": dev(t), "prod": prod(t)} {
		var statements []map[string]any
		for _, p := range s.resources("AWS::IAM::Policy") {
			doc := p["Properties"].(map[string]any)["PolicyDocument"].(map[string]any)
			for _, st := range asList(doc["Statement"]) {
				statements = append(statements, st.(map[string]any))
			}
		}
		for _, r := range s.resources("AWS::IAM::Role") {
			for _, pol := range asList(r["Properties"].(map[string]any)["Policies"]) {
				if pol == nil {
					continue
				}
				doc := pol.(map[string]any)["PolicyDocument"].(map[string]any)
				for _, st := range asList(doc["Statement"]) {
					statements = append(statements, st.(map[string]any))
				}
			}
		}
		// Dev has no tracing, so no X-Ray statements.
		if floor := map[string]int{"dev": 8, "prod": 10}[name]; len(statements) < floor {
			t.Fatalf("%s: only %d IAM statements found", name, len(statements))
		}
		for _, st := range statements {
			if st["Effect"] != "Allow" {
				continue
			}
			wildcard := false
			for _, r := range asList(st["Resource"]) {
				if r == "*" {
					wildcard = true
				}
			}
			for _, a := range asList(st["Action"]) {
				action, _ := a.(string)
				if action == "*" || strings.HasSuffix(action, ":*") {
					t.Errorf("%s: wildcard action %q", name, action)
				}
				if wildcard && !unscopable[action] {
					t.Errorf("%s: %s on Resource \"*\"", name, action)
				}
			}
		}
		// rds-db:connect: one db user on this cluster (dev) or proxy (prod):
		// the runtime role, and the sweep's own role for the sweep.
		users := map[string]int{}
		for _, st := range statements {
			if !slices.Contains(asList(st["Action"]), any("rds-db:connect")) {
				continue
			}
			for _, r := range asList(st["Resource"]) {
				res := mustJSON(r)
				if !strings.Contains(res, ":dbuser:") {
					t.Errorf("%s: rds-db:connect on %s, want dbuser:<resource id>/<user>", name, res)
				}
				trimmed := strings.TrimSuffix(res, `"]]}`)
				users[trimmed[strings.LastIndex(trimmed, "/")+1:]]++
				if !strings.Contains(res, "DBClusterResourceId") && !strings.Contains(res, "DatabaseProxy") {
					t.Errorf("%s: rds-db:connect not tied to the cluster or proxy: %s", name, res)
				}
			}
		}
		want := map[string]int{}
		for _, f := range deployedFunctions(s.stack.cfg, functionSpecs) {
			switch f.DB {
			case dbApp:
				want["regintel_app"]++
			case dbSweep:
				want["regintel_sweep"]++
			}
		}
		if s.stack.cfg.DBProxy {
			// The proxy's own IAM sign-in to the cluster, as each user.
			want["regintel_app"]++
			want["regintel_sweep"]++
		}
		if !maps.Equal(users, want) {
			t.Errorf("%s: rds-db:connect statements per user %v, want %v", name, users, want)
		}
	}
}

func TestMigrationsRunAsTrigger(t *testing.T) {
	d := dev(t)
	triggers := d.resources("Custom::MigrateStep")
	if len(triggers) != 1 {
		t.Fatalf("%d migrate steps, want 1", len(triggers))
	}
	clusters := d.resources("AWS::RDS::DBCluster")
	instances := d.resources("AWS::RDS::DBInstance")
	for _, tr := range triggers {
		p := tr["Properties"].(map[string]any)
		if !strings.Contains(mustJSON(p["HandlerArn"]), "MigrateFunctionCurrentVersion") {
			t.Errorf("migrate step handler %s, want the migrate function's version", mustJSON(p["HandlerArn"]))
		}
		if !refersTo(p["ServiceToken"], "MigrateStepFunction") {
			t.Errorf("migrate step served by %s, want MigrateStepFunction (migratestep/index.mjs)", mustJSON(p["ServiceToken"]))
		}
		deps := asList(tr["DependsOn"])
		for id := range clusters {
			if !slices.Contains(deps, any(id)) {
				t.Errorf("trigger does not wait for cluster %s", id)
			}
		}
		for id := range instances {
			if !slices.Contains(deps, any(id)) {
				t.Errorf("trigger does not wait for writer %s", id)
			}
		}
		ingress := 0
		for _, d := range deps {
			if id, _ := d.(string); strings.Contains(id, "DatabaseSGfrom") {
				ingress++
			}
		}
		if ingress == 0 {
			t.Errorf("trigger does not wait for the database ingress rules: %v", deps)
		}
	}
	env := d.props("MigrateFunction")["Environment"].(map[string]any)["Variables"].(map[string]any)
	if env["DB_IAM_AUTH"] != "false" || env["DB_SECRET_ARN"] == nil || env["DB_APP_USER"] != "regintel_app" || env["DB_USER"] != "regintel_admin" {
		t.Errorf("migrate env: %s", mustJSON(env))
	}
}

func TestFunctions(t *testing.T) {
	d := dev(t)
	for _, f := range deployedFunctions(d.stack.cfg, functionSpecs) {
		id := logicalID(f.Name)
		p := d.props(id)
		if p == nil {
			t.Errorf("%s: no function %s", f.Name, id)
			continue
		}
		if p["Runtime"] != "provided.al2023" || mustJSON(p["Architectures"]) != `["arm64"]` || p["Handler"] != "bootstrap" {
			t.Errorf("%s: runtime %v %v %v", f.Name, p["Runtime"], p["Architectures"], p["Handler"])
		}
		// Tracing is off by default: no function is X-Ray Active.
		if p["TracingConfig"] != nil || p["Layers"] != nil {
			t.Errorf("%s: tracing %v, layers %v with tracing off", f.Name, p["TracingConfig"], p["Layers"])
		}
		lc, _ := p["LoggingConfig"].(map[string]any)
		if lc["LogFormat"] != "JSON" || lc["LogGroup"] == nil || lc["SystemLogLevel"] != "INFO" {
			t.Errorf("%s: logging %s", f.Name, mustJSON(lc))
		}
		if p["VpcConfig"] == nil {
			t.Errorf("%s: not in the VPC", f.Name)
		}
		env := p["Environment"].(map[string]any)["Variables"].(map[string]any)
		if env["LOG_FORMAT"] != "json" {
			t.Errorf("%s: LOG_FORMAT %v", f.Name, env["LOG_FORMAT"])
		}
		if f.DB == dbApp && (env["DB_IAM_AUTH"] != "true" || env["DB_USER"] != "regintel_app" || env["DB_HOST"] == nil || env["DB_SECRET_ARN"] != nil) {
			t.Errorf("%s: database env %s", f.Name, mustJSON(env))
		}
		if f.DB == dbSweep && (env["DB_IAM_AUTH"] != "true" || env["DB_USER"] != "regintel_sweep" || env["DB_HOST"] == nil || env["DB_SECRET_ARN"] != nil) {
			t.Errorf("%s: the sweep's database env %s, want IAM sign-in as regintel_sweep", f.Name, mustJSON(env))
		}
		if f.DB == dbAdmin && (env["DB_APP_USER"] != "regintel_app" || env["DB_SWEEP_USER"] != "regintel_sweep") {
			t.Errorf("%s: migrate creates %v and %v, want regintel_app and regintel_sweep", f.Name, env["DB_APP_USER"], env["DB_SWEEP_USER"])
		}
		if f.LLM && (env["OPENAI_SECRET_ARN"] == nil || env["LLM_PROVIDER"] != "openai") {
			t.Errorf("%s: LLM env %s", f.Name, mustJSON(env))
		}
		for _, q := range f.Sends {
			if _, deployed := d.stack.queues[q]; deployed != (env[queueEnv(q)] != nil) {
				t.Errorf("%s: %s = %v with the queue deployed: %v", f.Name, queueEnv(q), env[queueEnv(q)], deployed)
			}
		}
	}
	for _, g := range d.resources("AWS::Logs::LogGroup") {
		if g["Properties"].(map[string]any)["RetentionInDays"] != float64(30) {
			t.Errorf("log group retention %v, want 30 in dev", g["Properties"].(map[string]any)["RetentionInDays"])
		}
	}
	assert(t, "sweep on the schedule", func() {
		d.tmpl.HasResourceProperties(jsii.String("AWS::Events::Rule"), &map[string]any{
			"ScheduleExpression": "cron(30 3 * * ? *)",
			"Targets":            assertions.Match_ArrayWith(&[]any{assertions.Match_ObjectLike(&map[string]any{"Arn": map[string]any{"Fn::GetAtt": []any{"SweepFunction", "Arn"}}})}),
		})
	})
	env := d.props("SweepFunction")["Environment"].(map[string]any)["Variables"].(map[string]any)
	if env["RETENTION_DAYS"] != "90" {
		t.Errorf("sweep retention env %v", env["RETENTION_DAYS"])
	}
	// Existing VPC: functions in the subnets from context.
	v := existingVpc(t).props("ChatFunction")["VpcConfig"].(map[string]any)
	if mustJSON(v["SubnetIds"]) != `["subnet-0app1","subnet-0app2"]` {
		t.Errorf("existing VPC: chat subnets %s", mustJSON(v["SubnetIds"]))
	}
}

func TestMissingBootstrapFails(t *testing.T) {
	ctx := cdkJSONContext(t)
	ctx["buildDir"] = t.TempDir()
	app := awscdk.NewApp(&awscdk.AppProps{Context: &ctx})
	cfg, err := LoadConfig(app.Node())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewStack(app, "Missing", nil, cfg, functionSpecs); err == nil || !strings.Contains(err.Error(), "make build") {
		t.Errorf("err = %v, want a hint to run make build", err)
	}
}

const collectorLayer = "arn:aws:lambda:eu-west-1:901920570463:layer:aws-otel-collector-arm64-ver-0-117-0:1"

// With tracing on (prod's context), the functions that emit spans are X-Ray Active, run the
// collector layer and export to it; the others stay untraced.
func TestTracingOnlyWhereSpansAreEmitted(t *testing.T) {
	s := prod(t)
	traced := map[string]bool{}
	for _, f := range deployedFunctions(s.stack.cfg, functionSpecs) {
		p := s.props(logicalID(f.Name))
		env := p["Environment"].(map[string]any)["Variables"].(map[string]any)
		active := mustJSON(p["TracingConfig"]) == `{"Mode":"Active"}`
		if active != f.Spans {
			t.Errorf("%s: tracing %v, emits spans: %v", f.Name, p["TracingConfig"], f.Spans)
		}
		if !f.Spans {
			if p["Layers"] != nil || env["TRACING"] != nil || env["TRACING_SAMPLE_RATIO"] != nil {
				t.Errorf("%s: emits no spans but has layers %v, TRACING %v, TRACING_SAMPLE_RATIO %v", f.Name, p["Layers"], env["TRACING"], env["TRACING_SAMPLE_RATIO"])
			}
			continue
		}
		traced[f.Name] = true
		if mustJSON(p["Layers"]) != `["`+collectorLayer+`"]` || env["TRACING"] != "on" || env["OTEL_EXPORTER_OTLP_ENDPOINT"] != collectorEndpoint ||
			env["TRACING_SAMPLE_RATIO"] != "0.25" {
			t.Errorf("%s: layers %v, env %s", f.Name, p["Layers"], mustJSON(env))
		}
	}
	if !traced["chat"] || !traced["resolve-concepts"] || !traced["enrich"] {
		t.Errorf("traced functions %v, want chat, resolve-concepts and enrich", traced)
	}
}

// Prepared statements pin a client to one connection behind RDS Proxy, so
// the functions prepare statements only when they reach the cluster directly.
func TestStatementCacheOnlyWithoutProxy(t *testing.T) {
	for _, d := range []*synthesized{dev(t), prod(t)} {
		want := strconv.FormatBool(!d.stack.cfg.DBProxy)
		for _, f := range deployedFunctions(d.stack.cfg, functionSpecs) {
			env := d.props(logicalID(f.Name))["Environment"].(map[string]any)["Variables"].(map[string]any)
			got, set := env["DB_STATEMENT_CACHE"]
			if f.DB == dbNone && set || f.DB != dbNone && got != want {
				t.Errorf("%s (stage %s, proxy %v): DB_STATEMENT_CACHE = %v", f.Name, d.stack.cfg.Stage, d.stack.cfg.DBProxy, got)
			}
		}
	}
}
