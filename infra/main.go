// Command infra is the CDK app that deploys regintel: `cdk synth` / `cdk
// deploy` from the repository root run it through cdk.json. See README.md.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/cxapi"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "functions" {
		// `go run . functions`: the bootstraps the function table runs,
		// for scripts that need the list without synthesizing (placeholder
		// builds).
		for _, b := range binaries(functionSpecs) {
			fmt.Println(b)
		}
		return
	}
	if err := checkOutdir(os.Getenv("CDK_OUTDIR")); err != nil {
		fmt.Fprintln(os.Stderr, "infra:", err)
		os.Exit(1)
	}
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	cfg, err := build(app)
	if err == nil {
		err = guardReplacement(cfg, app.Synth(nil))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "infra:", err)
		jsii.Close()
		os.Exit(1)
	}
}

// guardReplacement refuses (a non-zero exit, so the CLI deploys nothing) a
// synthesized stack that would replace the stage's database, proxy or
// network, unless allowReplacement is set.
func guardReplacement(cfg Config, asm cxapi.CloudAssembly) error {
	if cfg.AllowReplacement {
		return nil
	}
	raw, err := json.Marshal(asm.GetStackByName(jsii.String("RegIntel-" + cfg.Stage)).Template())
	if err != nil {
		return err
	}
	var template map[string]any
	if err := json.Unmarshal(raw, &template); err != nil {
		return err
	}
	return checkReplacement(cfg.StagesDir, cfg.Stage, template)
}

// build adds the stack for the app's context and the cdk-nag checks, after
// refusing a target account or region other than the stage's.
func build(app awscdk.App) (Config, error) {
	cfg, err := LoadConfig(app.Node())
	if err != nil {
		return cfg, err
	}
	// The template stays environment-agnostic (synth needs no credentials
	// and no lookups); the target is checked against the stage's pin.
	if err := checkTarget(cfg.Stage, stageFile{Account: cfg.Account, Region: cfg.Region},
		os.Getenv("CDK_DEFAULT_ACCOUNT"), os.Getenv("CDK_DEFAULT_REGION")); err != nil {
		return cfg, err
	}
	s, err := NewStack(app, "RegIntel-"+cfg.Stage, &awscdk.StackProps{
		Description: jsii.String("regintel backend (" + cfg.Stage + "): chat Function URL, queues, Aurora, workers"),
	}, cfg, functionSpecs)
	if err != nil {
		return cfg, err
	}
	suppressNag(s)
	awscdk.Aspects_Of(app).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	return cfg, nil
}
