package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// stageFile is infra/stages/<stage>.json: where a stage lives and the
// settings it must never lose. Its context wins over cdk.json and over
// `-c key=value`, so a deploy that forgets a flag deploys the same stack.
type stageFile struct {
	Account string         `json:"account"`
	Region  string         `json:"region"`
	Context map[string]any `json:"context"`
}

// createOnlyKeys are the settings whose change replaces a resource that
// holds data or that clients connect to by name: the database (its name),
// the proxy (its name) and the VPC (its CIDR). Every stage file states
// them, so none falls back to a default that might change.
var createOnlyKeys = []string{"dbName", "dbProxyName", "vpcCidr"}

var (
	accountRe = regexp.MustCompile(`^[0-9]{12}$`)
	regionRe  = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]$`)
)

// loadStageFile reads the stage's file from dir and checks it.
func loadStageFile(dir, stage string) (stageFile, error) {
	var sf stageFile
	path := filepath.Join(dir, stage+".json")
	b, err := os.ReadFile(path)
	if err != nil {
		return sf, fmt.Errorf("stage %s: %w: every stage has a file in infra/stages/ (see infra/README.md)", stage, err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sf); err != nil {
		return sf, fmt.Errorf("%s: %w", path, err)
	}
	var errs []string
	if !accountRe.MatchString(sf.Account) {
		errs = append(errs, fmt.Sprintf("account %q: want the 12-digit AWS account id", sf.Account))
	}
	if !regionRe.MatchString(sf.Region) {
		errs = append(errs, fmt.Sprintf("region %q: want a region such as eu-west-1", sf.Region))
	}
	for _, k := range createOnlyKeys {
		if _, ok := sf.Context[k]; !ok {
			errs = append(errs, fmt.Sprintf("context.%s is missing: changing it replaces a resource, so it is stated, not defaulted", k))
		}
	}
	if s, ok := sf.Context["stage"]; ok && s != stage {
		errs = append(errs, fmt.Sprintf("context.stage %v: the file is for stage %s", s, stage))
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return sf, fmt.Errorf("%s:\n  %s", path, strings.Join(errs, "\n  "))
	}
	return sf, nil
}

// checkTarget refuses to synthesize a stage for an account or region other
// than its own. The CDK CLI sets CDK_DEFAULT_ACCOUNT and CDK_DEFAULT_REGION
// from the credentials it deploys with. Offline (no credentials) the
// account is empty, the region is the CLI's default, and only the
// template is made: nothing is checked.
func checkTarget(stage string, sf stageFile, account, region string) error {
	if account == "" {
		return nil
	}
	if account != sf.Account {
		return fmt.Errorf("stage %s is pinned to account %s (infra/stages/%s.json), but the credentials are for account %s: refusing to synthesize",
			stage, sf.Account, stage, account)
	}
	if region != sf.Region {
		return fmt.Errorf("stage %s is pinned to region %s (infra/stages/%s.json), but the target region is %s: refusing to synthesize",
			stage, sf.Region, stage, region)
	}
	return nil
}
