package main

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// Config is everything the stack reads from CDK context (cdk.json or
// `cdk synth -c key=value`). Every key is documented in infra/README.md.
type Config struct {
	Stage string // "dev", "staging", "prod"...; "prod" turns on deletion protection and retention
	// StagesDir holds the stage files and the replacement snapshot.
	StagesDir string
	// AllowReplacement lets a synth replace the database, proxy or network
	// (checkReplacement refuses it otherwise).
	AllowReplacement bool
	// Account and Region the stage is pinned to (infra/stages/<stage>.json).
	Account, Region string

	// Bootstrap binaries: <BuildDir>/<function>/bootstrap, relative to the
	// infra directory unless absolute. `make synth` builds them first.
	BuildDir string

	// Network. Empty VpcID creates a VPC.
	VpcID             string
	VpcCidr           string   // the VPC's CIDR: of the VPC the stack creates, or of the existing one (optional there)
	AvailabilityZones []string // existing VPC: its AZs, one per subnet id below
	PrivateSubnetIDs  []string // existing VPC: subnets with egress for the functions
	PrivateRouteTable []string // existing VPC: route tables of those subnets (needed for peering)
	IsolatedSubnetIDs []string // existing VPC: subnets for the database (default: PrivateSubnetIDs)
	NatGateways       int      // new VPC only
	MaxAzs            int      // new VPC only

	// Database.
	DBName           string
	DBProxyName      string // the RDS Proxy's name (create-only: part of its endpoint)
	DBAppUser        string // IAM-authenticated role the functions log in as; created by migrate
	DBSweepUser      string // IAM-authenticated role the retention sweep logs in as (sees every tenant); created by migrate
	DBMasterUser     string
	DBMinCapacity    float64
	DBMaxCapacity    float64
	DBProxy          bool
	DBSecretRotation bool
	// DBDeletionProtection (default: prod) is off on a first prod deploy,
	// so a failed create can roll back (see infra/README.md).
	DBDeletionProtection bool
	// DBCaBundle is a PEM file name in each database function's build
	// directory: the functions then verify the server certificate
	// (verify-full) against it. Through RDS Proxy (an ACM certificate) the
	// system roots verify it without one.
	DBCaBundle string

	// Memgraph.
	MemgraphURI             string
	MemgraphCidr            string
	MemgraphSecurityGroupID string
	MemgraphPort            int
	MemgraphSecretArn       string // complete ARN of an existing secret; required with a graph
	MemgraphPeerVpcID       string // optional VPC peering to the Memgraph VPC (routes to MemgraphCidr)
	MemgraphPeerOwnerID     string
	MemgraphPeerRegion      string
	MemgraphPeerRoleArn     string // cross-account peering: role in the peer account that accepts it
	MemgraphHost            string // of MemgraphURI
	// GraphSetupHash digests the graph schema and the shipped dataset
	// (the sources under SourceRoot): the graph step reruns when it changes.
	GraphSetupHash string
	SourceRoot     string // the repository root, relative to the infra directory

	// LLM.
	OpenAISecretArn string // complete ARN of an existing secret; empty: the stack creates one to fill in
	LLMProvider     string
	LLMModel        string

	// Chat Function URL and JWT verification in the app.
	ChatAuthType string // NONE (the app verifies a JWT) or AWS_IAM
	// CloudFront (default in prod) puts a distribution with origin access
	// control in front of the URL, whose auth is then AWS_IAM.
	CloudFront bool
	// PublicChatURL is the explicit choice of an auth NONE URL in prod.
	PublicChatURL bool
	// WafWebACLArn is an existing CloudFront-scope web ACL (created in
	// us-east-1, e.g. with a rate-based rule) the distribution uses.
	WafWebACLArn   string
	CorsOrigins    []string
	JwtJwksURL     string
	JwtIssuer      string
	JwtAudience    string
	JwtTenantClaim string

	// Operations.
	LogRetentionDays     int
	ContextRetentionDays int
	SweepSchedule        string  // EventBridge schedule expression
	AlarmTopicArn        string  // optional SNS topic the alarms notify
	MonthlyBudgetUSD     float64 // the stage account's monthly cost budget; the alarm topic hears 80 % spent and 100 % forecast
	ChatReservedConc     int     // 0: unreserved
	DashboardName        string  // CloudWatch dashboard

	// Tracing turns on OpenTelemetry spans in the functions that emit them;
	// the ADOT collector layer (CollectorLayerArn, per region and
	// architecture) forwards them to X-Ray.
	Tracing           bool
	CollectorLayerArn string
	// TracingSampleRatio is the share of new traces the functions record
	// (TRACING_SAMPLE_RATIO); Lambda's own sampling decision is followed.
	TracingSampleRatio float64
}

// GraphOn reports whether the stack has a graph: without one no graph
// workers are deployed.
func (c Config) GraphOn() bool { return c.MemgraphURI != "" }

// JwtHeader is the header the chat function reads the user's token from:
// with IAM auth SigV4 owns Authorization.
func (c Config) JwtHeader() string {
	if c.ChatAuthType == "AWS_IAM" {
		return "X-User-Authorization"
	}
	return "Authorization"
}

// IsProd reports whether the stage gets production safeguards.
func (c Config) IsProd() bool { return c.Stage == "prod" }

var pgRoleRe = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

var stageRe = regexp.MustCompile(`^[a-z][a-z0-9-]{0,15}$`)

// LoadConfig reads and validates the context of node (normally the App).
func LoadConfig(node constructs.Node) (Config, error) {
	r := ctxReader{node: node}
	stage := r.str("stage", "dev")
	if !stageRe.MatchString(stage) {
		return Config{Stage: stage}, fmt.Errorf("stage %q: want lower-case letters, digits and dashes", stage)
	}
	stagesDir := r.str("stagesDir", "stages")
	sf, err := loadStageFile(stagesDir, stage)
	if err != nil {
		return Config{Stage: stage}, err
	}
	r.stage = sf.Context
	c := Config{
		Stage:    stage,
		Account:  sf.Account,
		Region:   sf.Region,
		BuildDir: r.str("buildDir", "../build"),

		StagesDir:        stagesDir,
		AllowReplacement: r.bool("allowReplacement", false),

		VpcID:             r.str("vpcId", ""),
		VpcCidr:           r.str("vpcCidr", ""),
		AvailabilityZones: r.list("vpcAvailabilityZones"),
		PrivateSubnetIDs:  r.list("vpcPrivateSubnetIds"),
		PrivateRouteTable: r.list("vpcPrivateRouteTableIds"),
		IsolatedSubnetIDs: r.list("vpcIsolatedSubnetIds"),
		NatGateways:       r.int("natGateways", 1),
		MaxAzs:            r.int("maxAzs", 2),

		DBName:        r.str("dbName", "regintel"),
		DBProxyName:   r.str("dbProxyName", "regintel-"+stage),
		DBAppUser:     r.str("dbUser", "regintel_app"),
		DBSweepUser:   r.str("dbSweepUser", "regintel_sweep"),
		DBMasterUser:  r.str("dbMasterUser", "regintel_admin"),
		DBMaxCapacity: r.float("dbMaxCapacity", 4),
		DBProxy:       r.bool("rdsProxy", false),

		MemgraphURI:             r.str("memgraphUri", ""),
		MemgraphCidr:            r.str("memgraphCidr", ""),
		MemgraphSecurityGroupID: r.str("memgraphSecurityGroupId", ""),
		MemgraphSecretArn:       r.str("memgraphSecretArn", ""),
		MemgraphPeerVpcID:       r.str("memgraphPeerVpcId", ""),
		MemgraphPeerOwnerID:     r.str("memgraphPeerOwnerId", ""),
		MemgraphPeerRegion:      r.str("memgraphPeerRegion", ""),
		MemgraphPeerRoleArn:     r.str("memgraphPeerRoleArn", ""),
		SourceRoot:              r.str("sourceRoot", ".."),

		OpenAISecretArn: r.str("openaiSecretArn", ""),
		LLMProvider:     r.str("llmProvider", "openai"),
		LLMModel:        r.str("llmModel", "gpt-4.1-mini"),

		ChatAuthType:   strings.ToUpper(r.str("chatAuthType", "")),
		CorsOrigins:    r.list("corsOrigins"),
		JwtJwksURL:     r.str("jwtJwksUrl", ""),
		JwtIssuer:      r.str("jwtIssuer", ""),
		JwtAudience:    r.str("jwtAudience", ""),
		JwtTenantClaim: r.str("jwtTenantClaim", "tenant_id"),

		ContextRetentionDays: r.int("contextRetentionDays", 90),
		SweepSchedule:        r.str("sweepSchedule", "cron(30 3 * * ? *)"),
		AlarmTopicArn:        r.str("alarmTopicArn", ""),

		Tracing:           r.bool("tracing", false),
		CollectorLayerArn: r.str("otelCollectorLayerArn", ""),

		TracingSampleRatio: r.float("tracingSampleRatio", 1),
	}
	prod := c.Stage == "prod"
	c.CloudFront = r.bool("cloudFront", prod)
	c.PublicChatURL = r.bool("publicChatUrl", false)
	c.WafWebACLArn = r.str("wafWebAclArn", "")
	if c.ChatAuthType == "" {
		c.ChatAuthType = "NONE"
		if c.CloudFront || prod {
			c.ChatAuthType = "AWS_IAM"
		}
	}
	c.DBSecretRotation = r.bool("dbSecretRotation", prod)
	c.DBDeletionProtection = r.bool("dbDeletionProtection", prod)
	// Above each stage's idle cost (infra/README.md, Cost drivers).
	c.MonthlyBudgetUSD = r.float("monthlyBudgetUsd", 100)
	if prod {
		c.MonthlyBudgetUSD = r.float("monthlyBudgetUsd", 300)
	}
	c.DBCaBundle = r.str("dbCaBundle", "")
	// Dev scales to zero when idle and leaves chat unreserved (new accounts
	// have too small a quota to reserve any); prod keeps a warm floor and
	// bounds chat.
	minACU, chatConc := 0.0, 0
	if prod {
		minACU, chatConc = 0.5, 100
	}
	c.DBMinCapacity = r.float("dbMinCapacity", minACU)
	c.ChatReservedConc = r.int("chatReservedConcurrency", chatConc)
	c.DashboardName = "regintel-" + c.Stage
	defaultRetention := 30
	if prod {
		defaultRetention = 365
	}
	c.LogRetentionDays = r.int("logRetentionDays", defaultRetention)
	c.MemgraphPort = 7687
	if c.MemgraphURI != "" {
		if u, err := url.Parse(c.MemgraphURI); err == nil {
			c.MemgraphHost = u.Hostname()
			if p, err := strconv.Atoi(u.Port()); err == nil {
				c.MemgraphPort = p
			}
		}
	}
	if r.err != nil {
		return c, r.err
	}
	if c.MemgraphURI != "" {
		var err error
		if c.GraphSetupHash, err = graphSetupHash(c.SourceRoot); err != nil {
			return c, err
		}
	}
	return c, c.validate()
}

var layerArnRe = regexp.MustCompile(`^arn:aws[a-z-]*:lambda:[a-z0-9-]+:[0-9]{12}:layer:[A-Za-z0-9_-]+:[0-9]+$`)

// boltSchemes are the URIs a single Memgraph server answers: it refuses the
// routing requests of neo4j:// URIs.
var boltSchemes = map[string]bool{"bolt": true, "bolt+s": true, "bolt+ssc": true}

func (c Config) validate() error {
	var errs []string
	add := func(f string, a ...any) { errs = append(errs, fmt.Sprintf(f, a...)) }
	if !stageRe.MatchString(c.Stage) {
		add("stage %q: want lower-case letters, digits and dashes", c.Stage)
	}
	if c.VpcID != "" {
		if len(c.AvailabilityZones) == 0 || len(c.PrivateSubnetIDs) == 0 {
			add("vpcId needs vpcAvailabilityZones and vpcPrivateSubnetIds (synth stays offline: no VPC lookup)")
		}
		if len(c.PrivateSubnetIDs) != len(c.AvailabilityZones) {
			add("vpcPrivateSubnetIds: want one subnet per availability zone (%d zones, %d subnets)", len(c.AvailabilityZones), len(c.PrivateSubnetIDs))
		}
		if len(c.IsolatedSubnetIDs) > 0 && len(c.IsolatedSubnetIDs) != len(c.AvailabilityZones) {
			add("vpcIsolatedSubnetIds: want one subnet per availability zone")
		}
		if c.MemgraphPeerVpcID != "" && len(c.PrivateRouteTable) != len(c.PrivateSubnetIDs) {
			add("memgraphPeerVpcId with an existing VPC needs vpcPrivateRouteTableIds, one per private subnet")
		}
	}
	if c.VpcID == "" {
		if _, n, err := net.ParseCIDR(c.VpcCidr); err != nil || n.String() != c.VpcCidr {
			add("vpcCidr %q: want the new VPC's network, such as 10.40.0.0/16", c.VpcCidr)
		} else if ones, _ := n.Mask.Size(); ones > 20 || ones < 16 {
			add("vpcCidr %q: want a /16 to /20 (the subnets are /24 and /20)", c.VpcCidr)
		}
	}
	if c.NatGateways < 1 && c.VpcID == "" {
		add("natGateways must be >= 1: the functions need egress to the LLM API")
	}
	if c.DBMinCapacity < 0 || c.DBMaxCapacity < c.DBMinCapacity || c.DBMaxCapacity < 1 || c.DBMaxCapacity > 256 {
		add("dbMinCapacity %.1f / dbMaxCapacity %.1f: want 0 <= min <= max, 1 <= max <= 256", c.DBMinCapacity, c.DBMaxCapacity)
	}
	if c.DBProxy && c.DBMinCapacity == 0 {
		add("dbMinCapacity 0 (scale to zero) cannot be used with rdsProxy: the proxy keeps connections open")
	}
	if c.DBAppUser == c.DBMasterUser {
		add("dbUser must differ from dbMasterUser")
	}
	// Row-level security shows the runtime role one tenant at a time: a
	// sweep signed in as it finds nothing to delete.
	if c.DBSweepUser == c.DBAppUser || c.DBSweepUser == c.DBMasterUser {
		add("dbSweepUser must differ from dbUser and dbMasterUser: the sweep needs its own role to see every tenant")
	}
	for _, kv := range [][2]string{{"dbUser", c.DBAppUser}, {"dbSweepUser", c.DBSweepUser}} {
		if !pgRoleRe.MatchString(kv[1]) {
			add("%s %q: want lower-case letters, digits and underscores (a Postgres role migrate creates)", kv[0], kv[1])
		}
	}
	if c.MemgraphURI != "" {
		u, err := url.Parse(c.MemgraphURI)
		if err != nil || u.Host == "" || !boltSchemes[u.Scheme] {
			add("memgraphUri %q: want bolt://host:7687 (bolt+s:// for TLS); Memgraph refuses neo4j:// routing", c.MemgraphURI)
		}
		// The graph step runs during the first deploy: the credentials must
		// be there before it, not filled in afterwards.
		if c.MemgraphSecretArn == "" {
			add("memgraphUri needs memgraphSecretArn, an existing secret with the Memgraph credentials (infra/README.md, before step 1): the deploy applies the graph schema and loads the dataset")
		}
		if (c.MemgraphCidr == "") == (c.MemgraphSecurityGroupID == "") {
			add("memgraphUri needs exactly one of memgraphCidr or memgraphSecurityGroupId for the egress rule")
		}
	}
	if c.MemgraphPeerVpcID != "" && c.MemgraphCidr == "" {
		add("memgraphPeerVpcId needs memgraphCidr (the route destination)")
	}
	if c.MemgraphPeerOwnerID != "" && c.MemgraphPeerRoleArn == "" {
		add("memgraphPeerOwnerId (cross-account peering) needs memgraphPeerRoleArn, a role in the peer account that accepts it; or create the peering outside the stack")
	}
	if c.DBCaBundle != "" && strings.ContainsAny(c.DBCaBundle, "/\\") {
		add("dbCaBundle %q: want a file name in each database function's build directory", c.DBCaBundle)
	}
	for _, arn := range []string{c.MemgraphSecretArn, c.OpenAISecretArn} {
		if arn != "" && !strings.HasPrefix(arn, "arn:") {
			add("secret %q: want the complete secret ARN", arn)
		}
	}
	if c.ChatAuthType != "NONE" && c.ChatAuthType != "AWS_IAM" {
		add("chatAuthType %q: want NONE or AWS_IAM", c.ChatAuthType)
	}
	if c.CloudFront && c.ChatAuthType != "AWS_IAM" {
		add("cloudFront needs chatAuthType AWS_IAM: origin access control signs the requests, and only they may reach the URL")
	}
	if c.IsProd() && c.ChatAuthType == "NONE" && !c.PublicChatURL {
		add("chatAuthType NONE in prod makes the chat URL public (every request billed and holding a reserved slot): set publicChatUrl=true to choose that, or keep CloudFront")
	}
	if c.WafWebACLArn != "" && (!c.CloudFront || !strings.HasPrefix(c.WafWebACLArn, "arn:aws:wafv2:us-east-1:") || !strings.Contains(c.WafWebACLArn, ":global/webacl/")) {
		add("wafWebAclArn %q: want a CloudFront-scope web ACL ARN (arn:aws:wafv2:us-east-1:<account>:global/webacl/...), with cloudFront on", c.WafWebACLArn)
	}
	// The chat function verifies a JWT in every stage (AUTH_MODE=jwt) and
	// refuses to start without a key source.
	for _, kv := range [][2]string{{"jwtJwksUrl", c.JwtJwksURL}, {"jwtIssuer", c.JwtIssuer}, {"jwtAudience", c.JwtAudience}} {
		if kv[1] == "" {
			add("%s is required in every stage: the chat function verifies the user's JWT and does not start without it", kv[0])
		}
	}
	if c.IsProd() && c.AlarmTopicArn == "" {
		add("alarmTopicArn is required in prod: the alarms must notify someone")
	}
	if c.IsProd() && c.ChatReservedConc < 1 {
		add("chatReservedConcurrency must be >= 1 in prod: it bounds the public URL and the database connections")
	}
	for _, o := range c.CorsOrigins {
		if o == "*" && c.IsProd() {
			add("corsOrigins: '*' is not allowed in prod")
		}
	}
	if _, ok := retentionDays[c.LogRetentionDays]; !ok {
		add("logRetentionDays %d: want one of the CloudWatch values (1, 3, 5, 7, 14, 30, 60, 90, 180, 365, ...)", c.LogRetentionDays)
	}
	if c.ContextRetentionDays < 1 {
		add("contextRetentionDays must be >= 1")
	}
	if !strings.HasPrefix(c.SweepSchedule, "cron(") && !strings.HasPrefix(c.SweepSchedule, "rate(") {
		add("sweepSchedule %q: want cron(...) or rate(...)", c.SweepSchedule)
	}
	if c.ChatReservedConc < 0 {
		add("chatReservedConcurrency must be >= 0")
	}
	if c.Tracing && !layerArnRe.MatchString(c.CollectorLayerArn) {
		add("tracing needs otelCollectorLayerArn, the ARN of the ADOT collector layer version for the region (arm64), e.g. arn:aws:lambda:eu-west-1:901920570463:layer:aws-otel-collector-arm64-ver-0-117-0:1")
	}
	if !(c.TracingSampleRatio >= 0 && c.TracingSampleRatio <= 1) {
		add("tracingSampleRatio %v: want a number from 0 to 1", c.TracingSampleRatio)
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid context:\n  %s", strings.Join(errs, "\n  "))
	}
	return nil
}

// BootstrapDir returns the asset directory of a function and checks that
// its bootstrap exists, so a missing `make build` fails with a clear message
// rather than a deploy of an empty zip.
func (c Config) BootstrapDir(fn string) (string, error) {
	dir := filepath.Join(c.BuildDir, fn)
	if _, err := os.Stat(filepath.Join(dir, "bootstrap")); err != nil {
		return "", fmt.Errorf("%s/bootstrap not found: run `make build` first (or pass -c buildDir=...)", dir)
	}
	return dir, nil
}

// CheckCaBundle checks the CA bundle is in a database function's build
// directory, so it is packaged next to the bootstrap.
func (c Config) CheckCaBundle(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, c.DBCaBundle)); err != nil {
		return fmt.Errorf("dbCaBundle: %s not found: copy the RDS CA bundle into each database function's build directory (infra/README.md)", filepath.Join(dir, c.DBCaBundle))
	}
	return nil
}

var retentionDays = map[int]awslogs.RetentionDays{
	1: awslogs.RetentionDays_ONE_DAY, 3: awslogs.RetentionDays_THREE_DAYS, 5: awslogs.RetentionDays_FIVE_DAYS,
	7: awslogs.RetentionDays_ONE_WEEK, 14: awslogs.RetentionDays_TWO_WEEKS, 30: awslogs.RetentionDays_ONE_MONTH,
	60: awslogs.RetentionDays_TWO_MONTHS, 90: awslogs.RetentionDays_THREE_MONTHS, 120: awslogs.RetentionDays_FOUR_MONTHS,
	150: awslogs.RetentionDays_FIVE_MONTHS, 180: awslogs.RetentionDays_SIX_MONTHS, 365: awslogs.RetentionDays_ONE_YEAR,
	400: awslogs.RetentionDays_THIRTEEN_MONTHS, 545: awslogs.RetentionDays_EIGHTEEN_MONTHS,
	731: awslogs.RetentionDays_TWO_YEARS, 1827: awslogs.RetentionDays_FIVE_YEARS, 3653: awslogs.RetentionDays_TEN_YEARS,
}

// ctxReader converts context values, which are JSON-typed from cdk.json and
// strings from `-c key=value`, and remembers the first conversion error.
type ctxReader struct {
	node  constructs.Node
	stage map[string]any // the stage file's context, which wins
	err   error
}

func (r *ctxReader) raw(key string) (string, bool) {
	v, ok := r.stage[key]
	if !ok {
		v = r.node.TryGetContext(jsii.String(key))
	}
	switch t := v.(type) {
	case nil:
		return "", false
	case string:
		t = strings.TrimSpace(t)
		return t, t != ""
	case []any:
		parts := make([]string, 0, len(t))
		for _, p := range t {
			parts = append(parts, fmt.Sprint(p))
		}
		return strings.Join(parts, ","), len(parts) > 0
	default:
		return fmt.Sprint(t), true
	}
}

func (r *ctxReader) str(key, def string) string {
	if v, ok := r.raw(key); ok {
		return v
	}
	return def
}

func (r *ctxReader) list(key string) []string {
	v, ok := r.raw(key)
	if !ok {
		return nil
	}
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (r *ctxReader) float(key string, def float64) float64 {
	v, ok := r.raw(key)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("context %s=%q: want a number", key, v)
	}
	return f
}

func (r *ctxReader) int(key string, def int) int {
	f := r.float(key, float64(def))
	if f != float64(int(f)) && r.err == nil {
		r.err = fmt.Errorf("context %s=%v: want a whole number", key, f)
	}
	return int(f)
}

func (r *ctxReader) bool(key string, def bool) bool {
	v, ok := r.raw(key)
	if !ok {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("context %s=%q: want true or false", key, v)
	}
	return b
}
