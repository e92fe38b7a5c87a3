package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

func TestMain(m *testing.M) {
	os.Setenv("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", "1")
	code := m.Run()
	jsii.Close()
	if stubDir != "" {
		_ = os.RemoveAll(stubDir)
	}
	os.Exit(code)
}

// stubDir is removed when the tests end.
var stubDir string

// stubBuild writes placeholder bootstraps for every function in the table:
// the tests check the template, not the binaries (`make build` makes those).
var stubBuild = sync.OnceValue(func() string {
	dir, err := os.MkdirTemp("", "regintel-infra-build-")
	if err != nil {
		panic(err)
	}
	stubDir = dir
	for _, b := range binaries(functionSpecs) {
		if err := os.MkdirAll(filepath.Join(dir, b), 0o755); err != nil {
			panic(err)
		}
		if err := os.WriteFile(filepath.Join(dir, b, "bootstrap"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			panic(err)
		}
	}
	return dir
})

// synthesized is one stack variant, synthesized with the cdk-nag checks.
type synthesized struct {
	stack *Stack
	tmpl  assertions.Template
	json  map[string]any
}

func (s *synthesized) resources(typ string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, r := range s.json["Resources"].(map[string]any) {
		res := r.(map[string]any)
		if res["Type"] == typ {
			out[id] = res
		}
	}
	return out
}

func (s *synthesized) props(id string) map[string]any {
	r, ok := s.json["Resources"].(map[string]any)[id].(map[string]any)
	if !ok {
		return nil
	}
	p, _ := r["Properties"].(map[string]any)
	return p
}

// synth builds the stack for ctx (merged over a placeholder buildDir) the
// way main does: same config, same suppressions, same nag pack.
func synth(t testing.TB, ctx map[string]any, nag bool) *synthesized {
	t.Helper()
	full := cdkJSONContext(t)
	full["buildDir"] = stubBuild()
	// As the CDK CLI does: functions name their asset directory, which is
	// how `sam local` finds their code in a CDK template.
	full["aws:cdk:enable-asset-metadata"] = true
	for k, v := range ctx {
		full[k] = v
	}
	app := awscdk.NewApp(&awscdk.AppProps{Context: &full})
	cfg, err := LoadConfig(app.Node())
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	st, err := NewStack(app, "RegIntel-"+cfg.Stage, nil, cfg, functionSpecs)
	if err != nil {
		t.Fatalf("stack: %v", err)
	}
	if nag {
		suppressNag(st)
	}
	awscdk.Aspects_Of(app).Add(cdknag.NewAwsSolutionsChecks(nil), nil)
	tmpl := assertions.Template_FromStack(st.Stack, nil)
	raw, err := json.Marshal(tmpl.ToJSON())
	if err != nil {
		t.Fatal(err)
	}
	s := &synthesized{stack: st, tmpl: tmpl}
	if err := json.Unmarshal(raw, &s.json); err != nil {
		t.Fatal(err)
	}
	return s
}

// cdkJSONContext is the context of the repository's cdk.json (defaults and
// feature flags), which `cdk synth` starts from before any -c value.
func cdkJSONContext(t testing.TB) map[string]any {
	t.Helper()
	var file struct {
		Context map[string]any `json:"context"`
	}
	b, err := os.ReadFile(filepath.Join("..", "cdk.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	return file.Context
}

var (
	devOnce, prodOnce, sgOnce, vpcOnce sync.Once
	devStack, prodStack, sgStack       *synthesized
	vpcStack                           *synthesized
)

// prodContext turns on every optional feature.
var prodContext = map[string]any{
	"stage": "prod", "rdsProxy": true,
	"memgraphUri": "bolt://10.50.1.10:7687", "memgraphCidr": "10.50.0.0/16",
	"memgraphPeerVpcId": "vpc-0123456789abcdef0",
	"memgraphSecretArn": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:regintel/memgraph-AbCdEf",
	"chatAuthType":      "AWS_IAM", "corsOrigins": "https://app.example.com,https://admin.example.com",
	"jwtJwksUrl": "https://id.example.com/.well-known/jwks.json", "jwtIssuer": "https://id.example.com/",
	"jwtAudience": "regintel", "alarmTopicArn": "arn:aws:sns:eu-west-1:123456789012:regintel-alarms",
	"openaiSecretArn": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:regintel/openai-AbCdEf",
	"tracing":         true, "otelCollectorLayerArn": collectorLayer, "tracingSampleRatio": 0.25,
}

func dev(t testing.TB) *synthesized {
	devOnce.Do(func() { devStack = synth(t, nil, true) })
	if devStack == nil {
		t.Fatal("dev stack failed to synthesize")
	}
	return devStack
}

func prod(t testing.TB) *synthesized {
	prodOnce.Do(func() { prodStack = synth(t, prodContext, true) })
	if prodStack == nil {
		t.Fatal("prod stack failed to synthesize")
	}
	return prodStack
}

// memgraphBySG reaches Memgraph by security group id instead of CIDR.
func memgraphBySG(t testing.TB) *synthesized {
	sgOnce.Do(func() {
		sgStack = synth(t, map[string]any{
			"memgraphUri": "bolt://memgraph.internal:7687", "memgraphSecurityGroupId": "sg-0123456789abcdef0",
			"memgraphSecretArn": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:regintel/memgraph-AbCdEf",
		}, true)
	})
	if sgStack == nil {
		t.Fatal("memgraph-by-sg stack failed to synthesize")
	}
	return sgStack
}

// existingVpc imports a VPC from context, with no lookup.
func existingVpc(t testing.TB) *synthesized {
	vpcOnce.Do(func() {
		vpcStack = synth(t, map[string]any{
			"vpcId": "vpc-0aaaaaaaaaaaaaaaa", "vpcAvailabilityZones": "eu-west-1a,eu-west-1b",
			"vpcPrivateSubnetIds":  []any{"subnet-0app1", "subnet-0app2"},
			"vpcIsolatedSubnetIds": "subnet-0db1,subnet-0db2",
		}, true)
	})
	if vpcStack == nil {
		t.Fatal("existing-vpc stack failed to synthesize")
	}
	return vpcStack
}

// assert runs a jsii assertion, which throws (panics) on mismatch, and
// reports the mismatch as a test error instead of aborting the run.
func assert(t testing.TB, what string, fn func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Helper()
			t.Errorf("%s: %v", what, r)
		}
	}()
	fn()
}

// mustJSON renders v for messages.
func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// refersTo reports whether a CloudFormation value refers to logical id
// (Ref or Fn::GetAtt, at any depth).
func refersTo(v any, id string) bool {
	s := mustJSON(v)
	return strings.Contains(s, fmt.Sprintf(`{"Ref":%q}`, id)) || strings.Contains(s, fmt.Sprintf(`"Fn::GetAtt":[%q`, id))
}

func asList(v any) []any {
	if v == nil {
		return nil
	}
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
}
