package main

import (
	"encoding/json"
	"flag"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
)

var updateReplacement = flag.Bool("update-replacement", false, "rewrite stages/replacement-snapshot.json from the synthesized stages")

// bareStages is a stages directory whose prod file holds only what every
// stage file must: the context the test adds is then not overridden.
func bareStages(t *testing.T) string {
	dir := t.TempDir()
	for _, stage := range []string{"dev", "prod"} {
		b, _ := json.Marshal(stageFile{Account: "123456789012", Region: "eu-west-1",
			Context: map[string]any{"dbName": "regintel", "dbProxyName": "regintel-" + stage, "vpcCidr": "10.40.0.0/16"}})
		if err := os.WriteFile(filepath.Join(dir, stage+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The stage file is the truth: a `-c` flag cannot change what it states,
// and every stage states its create-only settings.
func TestStageFileWinsOverTheCommandLine(t *testing.T) {
	c, err := loadCtx(t, map[string]any{"stage": "prod", "rdsProxy": "false", "dbName": "other", "vpcCidr": "10.99.0.0/16"})
	if err != nil {
		t.Fatal(err)
	}
	if !c.DBProxy || c.DBName != "regintel" || c.VpcCidr != "10.41.0.0/16" || c.DBProxyName != "regintel-prod" || c.NatGateways != 2 {
		t.Errorf("prod from its stage file: proxy %v, db %q, cidr %q, proxy name %q, NAT %d", c.DBProxy, c.DBName, c.VpcCidr, c.DBProxyName, c.NatGateways)
	}
	for _, stage := range []string{"dev", "prod"} {
		sf, err := loadStageFile("stages", stage)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range createOnlyKeys {
			if _, ok := sf.Context[k]; !ok {
				t.Errorf("stages/%s.json does not state %s", stage, k)
			}
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dev.json"), []byte(`{"account": "123456789012", "region": "eu-west-1", "context": {"dbName": "x"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadCtx(t, map[string]any{"stagesDir": dir}); err == nil || !strings.Contains(err.Error(), "dbProxyName is missing") {
		t.Errorf("a stage file without its create-only settings: %v", err)
	}
	if _, err := loadCtx(t, map[string]any{"stage": "staging"}); err == nil || !strings.Contains(err.Error(), "staging.json") {
		t.Errorf("a stage without a file: %v", err)
	}
}

// Each stage loads from cdk.json and its stage file alone, as `make synth
// STAGE=<stage>` does: no -c flag is needed.
func TestEachStageLoadsAsCommitted(t *testing.T) {
	for _, stage := range []string{"dev", "prod"} {
		ctx := cdkJSONContext(t)
		ctx["stage"] = stage
		app := awscdk.NewApp(&awscdk.AppProps{Context: &ctx})
		if _, err := LoadConfig(app.Node()); err != nil {
			t.Errorf("stage %s as committed: %v", stage, err)
		}
	}
}

// Synth refuses credentials for another account or region than the
// stage's, and accepts none (offline) or the right ones.
func TestWrongAccountIsRefusedAtSynth(t *testing.T) {
	sf, err := loadStageFile("stages", "prod")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		account, region string
		ok              bool
	}{
		{"", "", true},
		{"", "us-east-1", true}, // offline: the CLI's default region, no account
		{sf.Account, sf.Region, true},
		{"999999999999", sf.Region, false},
		{sf.Account, "us-east-1", false},
	} {
		if err := checkTarget("prod", sf, c.account, c.region); (err == nil) != c.ok {
			t.Errorf("checkTarget(%q, %q) = %v, want accepted %v", c.account, c.region, err, c.ok)
		}
	}
}

// A change that would replace the database, the proxy or the network
// fails here, against the committed snapshot of each stage's template:
// a resource of those types lost or renamed (its logical id), or a
// create-only property changed. A deliberate replacement updates the
// snapshot with -update-replacement, in the same commit.
func TestNoChangeReplacesTheDatabaseOrProxy(t *testing.T) {
	got := map[string]map[string]string{"dev": replacementKeysOf(dev(t)), "prod": replacementKeysOf(prod(t))}
	path := filepath.Join("stages", "replacement-snapshot.json")
	if *updateReplacement {
		b, _ := json.MarshalIndent(got, "", "  ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]map[string]string
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for _, stage := range []string{"dev", "prod"} {
		for _, key := range sortedKeys(want[stage]) {
			if g, ok := got[stage][key]; !ok {
				t.Errorf("%s: %s is gone: CloudFormation would delete it (and replace it under a new id)", stage, key)
			} else if g != want[stage][key] {
				t.Errorf("%s: %s changes from %s to %s: CloudFormation would replace it", stage, key, want[stage][key], g)
			}
		}
	}
}

func replacementKeysOf(s *synthesized) map[string]string { return replacementKeys(s.json) }

func TestReplacementCheckSeesAChangedDatabaseName(t *testing.T) {
	base := replacementKeysOf(dev(t))
	changed := replacementKeysOf(synth(t, map[string]any{"stagesDir": renamedDatabase(t)}, true))
	var diffs []string
	for k, v := range base {
		if changed[k] != v {
			diffs = append(diffs, k)
		}
	}
	if !slices.ContainsFunc(diffs, func(k string) bool { return strings.HasSuffix(k, "AWS::RDS::DBCluster DatabaseName") }) {
		t.Errorf("a renamed database changes %v, want the cluster's DatabaseName among them", diffs)
	}
}

// renamedDatabase is the stages directory with dev's database renamed.
func renamedDatabase(t *testing.T) string {
	dir := bareStages(t)
	sf, err := loadStageFile("stages", "dev")
	if err != nil {
		t.Fatal(err)
	}
	sf.Context["dbName"] = "regintel_renamed"
	b, _ := json.Marshal(sf)
	if err := os.WriteFile(filepath.Join(dir, "dev.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Each stage has a network of its own: two stages that peer with one
// Memgraph cannot share a CIDR, and neither may overlap Memgraph's. The
// committed prod stage has the graph wired as the guide describes.
func TestStagesHaveTheirOwnNetworks(t *testing.T) {
	var prefixes []netip.Prefix
	var memgraph []netip.Prefix
	for _, stage := range []string{"dev", "prod"} {
		c, err := loadCtx(t, map[string]any{"stage": stage})
		if err != nil {
			t.Fatal(err)
		}
		p, err := netip.ParsePrefix(c.VpcCidr)
		if err != nil {
			t.Fatalf("%s: vpcCidr %q: %v", stage, c.VpcCidr, err)
		}
		prefixes = append(prefixes, p)
		if c.MemgraphCidr != "" {
			memgraph = append(memgraph, netip.MustParsePrefix(c.MemgraphCidr))
		}
		if stage == "prod" && (c.MemgraphURI == "" || c.MemgraphSecretArn == "" || c.MemgraphPeerVpcID == "" || c.MemgraphCidr == "") {
			t.Errorf("stages/prod.json does not wire the graph (memgraphUri, memgraphSecretArn, memgraphCidr, memgraphPeerVpcId): %+v", c)
		}
	}
	if prefixes[0].Overlaps(prefixes[1]) {
		t.Errorf("dev %s and prod %s overlap: one Memgraph cannot route back to both", prefixes[0], prefixes[1])
	}
	for _, m := range memgraph {
		for _, p := range prefixes {
			if m.Overlaps(p) {
				t.Errorf("Memgraph's %s overlaps a stage's VPC %s: the peering cannot route it", m, p)
			}
		}
	}
}

// samInvokeExample is the README's sam-invoke command with a graph.
var samInvokeExample = regexp.MustCompile("make sam-invoke FN=resolve-concepts CDK_ARGS=\"([^\"]+)\"")

// The README's sam-invoke example with a graph loads: every input a graph
// needs is in it.
func TestReadmeSamInvokeExampleLoads(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := samInvokeExample.FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no make sam-invoke FN=resolve-concepts CDK_ARGS=\"...\" example")
	}
	ctx := map[string]any{}
	for _, kv := range regexp.MustCompile(`-c\s+(\S+?)=(\S+)`).FindAllStringSubmatch(string(m[1]), -1) {
		ctx[kv[1]] = kv[2]
	}
	c, err := loadCtx(t, ctx)
	if err != nil {
		t.Fatalf("the README's example %q does not load: %v", m[1], err)
	}
	if c.MemgraphURI == "" {
		t.Errorf("the README's example %q deploys no graph, so no resolve-concepts", m[1])
	}
}

// The guard the app runs after every synth (checkReplacement) sees what
// the snapshot test cannot: a -c key on the command line. Importing a VPC
// with -c vpcId would delete dev's VPC and subnets, under the running
// database; the committed stages pass.
func TestReplacementGuardRefusesAContextKeyThatReplaces(t *testing.T) {
	if err := checkReplacement("stages", "dev", dev(t).json); err != nil {
		t.Errorf("dev as committed: %v", err)
	}
	if err := checkReplacement("stages", "prod", prod(t).json); err != nil {
		t.Errorf("prod as committed: %v", err)
	}
	err := checkReplacement("stages", "dev", existingVpc(t).json)
	if err == nil || !strings.Contains(err.Error(), "AWS::EC2::VPC is gone") || !strings.Contains(err.Error(), "AWS::EC2::Subnet is gone") {
		t.Errorf("dev with -c vpcId: %v, want a refusal naming the VPC and its subnets", err)
	}
	if err := checkReplacement("stages", "staging", existingVpc(t).json); err != nil {
		t.Errorf("a stage without a snapshot is not checked: %v", err)
	}
}
