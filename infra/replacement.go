package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// replaceable lists, per resource type, the properties whose change makes
// CloudFormation replace the resource ("Update requires: Replacement" in
// its resource reference). A replaced database is an empty database; a
// replaced proxy or VPC changes every endpoint.
var replaceable = map[string][]string{
	"AWS::RDS::DBCluster":     {"DatabaseName", "DBClusterIdentifier", "Engine", "MasterUsername", "StorageEncrypted", "KmsKeyId", "DBSubnetGroupName", "EngineMode"},
	"AWS::RDS::DBInstance":    {"DBClusterIdentifier", "DBInstanceIdentifier", "Engine"},
	"AWS::RDS::DBProxy":       {"DBProxyName", "EngineFamily", "VpcSubnetIds"},
	"AWS::RDS::DBSubnetGroup": {"DBSubnetGroupName"},
	"AWS::EC2::VPC":           {"CidrBlock"},
	"AWS::EC2::Subnet":        {"CidrBlock", "AvailabilityZone", "VpcId"},
}

// replacementSnapshot is the committed snapshot, per stage, of
// replacementKeys: infra/stages/replacement-snapshot.json.
const replacementSnapshot = "replacement-snapshot.json"

// replacementKeys are "<logical id> <type> <property>" -> value for each
// replaceable property of each resource of the types above, in a
// template's JSON.
func replacementKeys(template map[string]any) map[string]string {
	out := map[string]string{}
	resources, _ := template["Resources"].(map[string]any)
	for id, r := range resources {
		res, _ := r.(map[string]any)
		typ, _ := res["Type"].(string)
		props, ok := replaceable[typ]
		if !ok {
			continue
		}
		p, _ := res["Properties"].(map[string]any)
		out[id+" "+typ] = "exists"
		for _, name := range props {
			if v, ok := p[name]; ok {
				b, _ := json.Marshal(v)
				out[id+" "+typ+" "+name] = string(b)
			}
		}
	}
	return out
}

// replacements compares a stage's template with its snapshot: what the
// deploy would delete or replace among the database, the proxy and the
// network.
func replacements(want, got map[string]string) []string {
	var out []string
	for _, key := range sortedKeys(want) {
		if g, ok := got[key]; !ok {
			out = append(out, fmt.Sprintf("%s is gone: CloudFormation would delete it", key))
		} else if g != want[key] {
			out = append(out, fmt.Sprintf("%s changes from %s to %s: CloudFormation would replace it", key, want[key], g))
		}
	}
	return out
}

// checkReplacement is the guard a stack policy would be: it refuses a
// template that replaces or deletes the stage's database, proxy or
// network, whatever caused it (code, the stage file, or a -c key such as
// vpcId on the command line). A stage without a snapshot is not checked;
// a deliberate replacement passes -c allowReplacement=true (and updates
// the snapshot, see TestNoChangeReplacesTheDatabaseOrProxy).
func checkReplacement(stagesDir, stage string, template map[string]any) error {
	b, err := os.ReadFile(filepath.Join(stagesDir, replacementSnapshot))
	if err != nil {
		return fmt.Errorf("replacement guard: %w", err)
	}
	var snap map[string]map[string]string
	if err := json.Unmarshal(b, &snap); err != nil {
		return fmt.Errorf("replacement guard: %s: %w", replacementSnapshot, err)
	}
	want, ok := snap[stage]
	if !ok {
		return nil
	}
	if r := replacements(want, replacementKeys(template)); len(r) > 0 {
		return fmt.Errorf("stage %s: this template would replace data or endpoints (refusing; -c allowReplacement=true if deliberate):\n  %s",
			stage, strings.Join(r, "\n  "))
	}
	return nil
}
