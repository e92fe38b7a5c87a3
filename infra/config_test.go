package main

import (
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
)

// loadCtx loads ctx over the JWT settings every stage needs.
func loadCtx(t *testing.T, ctx map[string]any) (Config, error) {
	t.Helper()
	full := map[string]any{"jwtJwksUrl": "https://x/jwks", "jwtIssuer": "https://x/", "jwtAudience": "a"}
	for k, v := range ctx {
		full[k] = v
	}
	app := awscdk.NewApp(&awscdk.AppProps{Context: &full})
	return LoadConfig(app.Node())
}

func TestConfigDefaults(t *testing.T) {
	c, err := loadCtx(t, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Stage != "dev" || c.IsProd() || c.DBMinCapacity != 0 || c.DBMaxCapacity != 4 || c.ChatAuthType != "NONE" ||
		c.LogRetentionDays != 30 || c.DBSecretRotation || c.MemgraphPort != 7687 || c.ChatReservedConc != 0 || c.DBDeletionProtection ||
		c.TracingSampleRatio != 1 {
		t.Errorf("defaults: %+v", c)
	}
	p, err := loadCtx(t, map[string]any{"stage": "prod", "alarmTopicArn": "arn:aws:sns:eu-west-1:1:t"})
	if err != nil {
		t.Fatal(err)
	}
	if !p.IsProd() || p.LogRetentionDays != 365 || !p.DBSecretRotation || !p.DBDeletionProtection || p.DBMinCapacity != 0.5 || p.ChatReservedConc != 100 {
		t.Errorf("prod defaults: %+v", p)
	}
	// Strings from `-c key=value` parse like JSON values from cdk.json.
	s, err := loadCtx(t, map[string]any{"dbMinCapacity": "0", "dbMaxCapacity": "8", "rdsProxy": "false", "memgraphUri": "bolt+s://mg:7688", "memgraphCidr": "10.9.0.0/16",
		"memgraphSecretArn": "arn:aws:secretsmanager:eu-west-1:1:secret:mg-AbCdEf"})
	if err != nil {
		t.Fatal(err)
	}
	if s.DBMinCapacity != 0 || s.DBMaxCapacity != 8 || s.DBProxy || s.MemgraphPort != 7688 {
		t.Errorf("string context: %+v", s)
	}
}

func TestConfigRejects(t *testing.T) {
	for name, tc := range map[string]struct {
		ctx  map[string]any
		want string
	}{
		"vpc without subnets":      {map[string]any{"vpcId": "vpc-1"}, "vpcAvailabilityZones"},
		"scale to zero with proxy": {map[string]any{"rdsProxy": true, "dbMinCapacity": 0}, "scale to zero"},
		"memgraph without target":  {map[string]any{"memgraphUri": "bolt://mg:7687"}, "exactly one of memgraphCidr"},
		"memgraph both targets":    {map[string]any{"memgraphUri": "bolt://mg:7687", "memgraphCidr": "10.0.0.0/8", "memgraphSecurityGroupId": "sg-1"}, "exactly one"},
		"memgraph bad scheme":      {map[string]any{"memgraphUri": "http://mg:7687", "memgraphCidr": "10.0.0.0/8"}, "want bolt://"},
		"memgraph routing uri":     {map[string]any{"memgraphUri": "neo4j://mg:7687", "memgraphCidr": "10.0.0.0/8"}, "refuses neo4j://"},
		"memgraph without secret":  {map[string]any{"memgraphUri": "bolt://mg:7687", "memgraphCidr": "10.0.0.0/8"}, "memgraphUri needs memgraphSecretArn"},
		"sweep as the app role":    {map[string]any{"dbSweepUser": "regintel_app"}, "dbSweepUser must differ"},
		"bad auth type":            {map[string]any{"chatAuthType": "COGNITO"}, "want NONE or AWS_IAM"},
		"dev without jwks":         {map[string]any{"jwtJwksUrl": ""}, "jwtJwksUrl is required in every stage"},
		"iam without issuer":       {map[string]any{"chatAuthType": "AWS_IAM", "jwtIssuer": ""}, "jwtIssuer is required"},
		"no audience":              {map[string]any{"jwtAudience": ""}, "jwtAudience is required"},
		"prod without alarm topic": {map[string]any{"stage": "prod", "stagesDir": bareStages(t)}, "alarmTopicArn is required in prod"},
		"prod unbounded chat":      {map[string]any{"stage": "prod", "chatReservedConcurrency": 0}, "chatReservedConcurrency must be >= 1 in prod"},
		"cross-account peering":    {map[string]any{"memgraphUri": "bolt://10.50.1.10:7687", "memgraphCidr": "10.50.0.0/16", "memgraphPeerVpcId": "vpc-2", "memgraphPeerOwnerId": "210987654321"}, "memgraphPeerRoleArn"},
		"ca bundle path":           {map[string]any{"dbCaBundle": "/etc/ssl/rds.pem"}, "dbCaBundle"},
		"prod cors star":           {map[string]any{"stage": "prod", "chatAuthType": "AWS_IAM", "corsOrigins": "*"}, "not allowed in prod"},
		"bad retention":            {map[string]any{"logRetentionDays": 31}, "logRetentionDays"},
		"bad number":               {map[string]any{"dbMaxCapacity": "lots"}, "want a number"},
		"max below min":            {map[string]any{"dbMinCapacity": 8, "dbMaxCapacity": 2}, "dbMinCapacity"},
		"secret name not arn":      {map[string]any{"openaiSecretArn": "regintel/openai"}, "complete secret ARN"},
		"peering without cidr":     {map[string]any{"memgraphUri": "bolt://mg:7687", "memgraphSecurityGroupId": "sg-1", "memgraphPeerVpcId": "vpc-2"}, "needs memgraphCidr"},
		"bad stage":                {map[string]any{"stage": "Prod!"}, "stage"},
		"bad schedule":             {map[string]any{"sweepSchedule": "daily"}, "sweepSchedule"},
		"tracing without layer":    {map[string]any{"tracing": true}, "otelCollectorLayerArn"},
		"tracing bad layer":        {map[string]any{"tracing": "true", "otelCollectorLayerArn": "aws-otel-collector"}, "otelCollectorLayerArn"},
		"sample ratio above 1":     {map[string]any{"tracingSampleRatio": 1.5}, "tracingSampleRatio"},
		"sample ratio below 0":     {map[string]any{"tracingSampleRatio": "-0.1"}, "tracingSampleRatio"},
	} {
		_, err := loadCtx(t, tc.ctx)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
	}
}

func TestLogicalIDs(t *testing.T) {
	for in, want := range map[string]string{"chat": "ChatFunction", "resolve-concepts": "ResolveConceptsFunction", "a_b-c": "ABCFunction"} {
		if got := logicalID(in); got != want {
			t.Errorf("logicalID(%q) = %q, want %q", in, got, want)
		}
	}
	if queueID("enrichment") != "Enrichment" {
		t.Error(queueID("enrichment"))
	}
}
