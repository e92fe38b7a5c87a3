package main

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestBackupWindowMatchesTheGuide: the synthesized clusters keep the
// point-in-time window infra/README.md's restore drill states (prod 14
// days, other stages 3), and the guide has the drill's restore commands.
func TestBackupWindowMatchesTheGuide(t *testing.T) {
	guide, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	stated := regexp.MustCompile(`\*\*(\d+) days in prod\*\* and \*\*(\d+) days in other stages\*\*`).FindSubmatch(guide)
	if stated == nil {
		t.Fatal("infra/README.md states no point-in-time restore window")
	}
	for name, s := range map[string]*synthesized{"prod": prod(t), "dev": dev(t)} {
		clusters := s.resources("AWS::RDS::DBCluster")
		if len(clusters) != 1 {
			t.Fatalf("%s: %d clusters", name, len(clusters))
		}
		want := string(stated[2])
		if name == "prod" {
			want = string(stated[1])
		}
		for id, c := range clusters {
			got := c["Properties"].(map[string]any)["BackupRetentionPeriod"]
			if n, ok := got.(float64); !ok || strconv.Itoa(int(n)) != want {
				t.Errorf("%s: %s keeps backups %v days, the guide says %s", name, id, got, want)
			}
		}
	}
	for _, step := range []string{"aws rds restore-db-cluster-to-point-in-time", "aws rds create-db-instance", "aws rds delete-db-cluster"} {
		if !regexp.MustCompile(regexp.QuoteMeta(step)).Match(guide) {
			t.Errorf("the restore drill lacks %q", step)
		}
	}
}
