package main

import (
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

func fnEnv(s *synthesized, id string) map[string]any {
	p := s.props(id)
	if p == nil {
		return nil
	}
	return p["Environment"].(map[string]any)["Variables"].(map[string]any)
}

// Without memgraphUri there is no graph to resolve into or enrich: no graph
// workers, no queues, no Memgraph secret; chat grounds on its own seeded graph.
func TestWithoutAGraphNoGraphWorkers(t *testing.T) {
	d := dev(t)
	for _, id := range []string{"ResolveConceptsFunction", "EnrichFunction", "ConceptsQueue", "EnrichmentQueue", "MemgraphSecret"} {
		for rid := range d.json["Resources"].(map[string]any) {
			if strings.HasPrefix(rid, id) {
				t.Errorf("dev without a graph has %s", rid)
			}
		}
	}
	env := fnEnv(d, "ChatFunction")
	for _, k := range []string{"MEMGRAPH_URI", "MEMGRAPH_SECRET_ARN", "CONCEPTS_QUEUE_URL"} {
		if env[k] != nil {
			t.Errorf("dev chat has %s", k)
		}
	}
	// With a graph: the workers exist and reach the graph; of them only the
	// resolver reaches Postgres, for the per-tenant daily graph quota.
	g := memgraphBySG(t)
	for id, database := range map[string]bool{"ResolveConceptsFunction": true, "EnrichFunction": false} {
		env := fnEnv(g, id)
		if env == nil {
			t.Fatalf("graph stack lacks %s", id)
		}
		if env["MEMGRAPH_URI"] == nil || (env["DB_HOST"] != nil) != database || (env["DB_USER"] != nil) != database {
			t.Errorf("%s env %s: want the graph, and the database only for the resolver", id, mustJSON(env))
		}
	}
	// The Memgraph secret is read by the graph functions only.
	for id, pol := range g.resources("AWS::IAM::Policy") {
		doc := mustJSON(pol["Properties"].(map[string]any)["PolicyDocument"])
		if strings.Contains(doc, "MemgraphSecret") && strings.Contains(id, "Sweep") {
			t.Errorf("sweep can read the Memgraph secret: %s", id)
		}
	}
}

func TestDatabaseDeploysOnTheFirstTry(t *testing.T) {
	p := prod(t)
	assert(t, "an engine version that can create clusters", func() {
		p.tmpl.HasResourceProperties(jsii.String("AWS::RDS::DBCluster"), &map[string]any{"Engine": "aurora-postgresql", "EngineVersion": "17.9"})
	})
	assert(t, "rotation waits for its schedule (no rotation racing migrate on create)", func() {
		p.tmpl.HasResourceProperties(jsii.String("AWS::SecretsManager::RotationSchedule"), &map[string]any{
			"RotateImmediatelyOnUpdate": false,
		})
	})
	first := synth(t, mergeCtx(prodContext, map[string]any{"dbDeletionProtection": false}), true)
	assert(t, "first prod deploy: no deletion protection", func() {
		first.tmpl.HasResourceProperties(jsii.String("AWS::RDS::DBCluster"), &map[string]any{"DeletionProtection": false})
	})
	if errs, _ := nagFindings(first); len(errs) != 0 {
		t.Errorf("first prod deploy has nag findings: %v", errs)
	}
	// TLS: through the proxy the ACM certificate is verified; migrate goes
	// straight to the cluster and encrypts without a CA bundle.
	if env := fnEnv(p, "ChatFunction"); env["DB_SSLMODE"] != "verify-full" {
		t.Errorf("prod chat DB_SSLMODE %v, want verify-full through the proxy", env["DB_SSLMODE"])
	}
	if env := fnEnv(p, "MigrateFunction"); env["DB_SSLMODE"] != "require" || env["DB_SSLROOTCERT"] != nil {
		t.Errorf("prod migrate TLS %v %v", env["DB_SSLMODE"], env["DB_SSLROOTCERT"])
	}
}

func TestCrossAccountPeeringAndTLSBolt(t *testing.T) {
	s := synth(t, map[string]any{
		"memgraphUri": "bolt+s://memgraph.example.internal:7688", "memgraphCidr": "10.60.0.0/16",
		"memgraphPeerVpcId": "vpc-0123456789abcdef0", "memgraphPeerOwnerId": "210987654321",
		"memgraphPeerRoleArn": "arn:aws:iam::210987654321:role/accept-peering",
		"memgraphSecretArn":   "arn:aws:secretsmanager:eu-west-1:123456789012:secret:regintel/memgraph-AbCdEf",
	}, true)
	assert(t, "peering with the accepter role", func() {
		s.tmpl.HasResourceProperties(jsii.String("AWS::EC2::VPCPeeringConnection"), &map[string]any{
			"PeerOwnerId": "210987654321", "PeerRoleArn": "arn:aws:iam::210987654321:role/accept-peering",
		})
	})
	if env := fnEnv(s, "ChatFunction"); env["MEMGRAPH_URI"] != "bolt+s://memgraph.example.internal:7688" {
		t.Errorf("chat MEMGRAPH_URI %v", env["MEMGRAPH_URI"])
	}
	assert(t, "Bolt egress on the URI's port to memgraphCidr (a DNS name can move)", func() {
		s.tmpl.HasResourceProperties(jsii.String("AWS::EC2::SecurityGroup"), &map[string]any{
			"GroupDescription": assertions.Match_StringLikeRegexp(jsii.String("^regintel functions")),
			"SecurityGroupEgress": assertions.Match_ArrayWith(&[]any{assertions.Match_ObjectLike(&map[string]any{
				"CidrIp": "10.60.0.0/16", "FromPort": 7688, "ToPort": 7688,
			})}),
		})
	})
}

func TestLimitsAlarmsAndDashboard(t *testing.T) {
	p := prod(t)
	if got := p.props("ChatFunction")["ReservedConcurrentExecutions"]; got != float64(100) {
		t.Errorf("prod chat reserved concurrency %v, want 100", got)
	}
	if got := dev(t).props("ChatFunction")["ReservedConcurrentExecutions"]; got != nil {
		t.Errorf("dev chat reserved concurrency %v, want unreserved", got)
	}
	for name, want := range map[string]map[string]any{
		"chat errors":        {"MetricName": "Errors", "Dimensions": []any{map[string]any{"Name": "FunctionName", "Value": map[string]any{"Ref": "ChatFunction"}}}},
		"chat throttles":     {"MetricName": "Throttles", "Threshold": 1},
		"chat p99 duration":  {"MetricName": "Duration", "ExtendedStatistic": "p99", "Threshold": 144000},
		"aurora ACU at max":  {"MetricName": "ServerlessDatabaseCapacity", "Namespace": "AWS/RDS"},
		"aurora connections": {"MetricName": "DatabaseConnections", "Namespace": "AWS/RDS"},
	} {
		assert(t, "prod alarm: "+name, func() {
			p.tmpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), &want)
		})
	}
	assert(t, "a dashboard", func() {
		p.tmpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Dashboard"), &map[string]any{"DashboardName": "regintel-prod"})
	})
	if got := auroraMaxConnections(4); got != 901 {
		t.Errorf("max_connections at 4 ACU = %v, want 901", got)
	}
}

func mergeCtx(maps ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}
