package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestCheckOutdirRefusesARelativeFolder(t *testing.T) {
	for _, dir := range []string{"cdk.out", "./cdk.out", "../cdk.out"} {
		if err := checkOutdir(dir); err == nil {
			t.Errorf("checkOutdir(%q) = nil, want a refusal", dir)
		}
	}
	for _, dir := range []string{"", "/tmp/regintel/cdk.out"} {
		if err := checkOutdir(dir); err != nil {
			t.Errorf("checkOutdir(%q) = %v, want nil", dir, err)
		}
	}
}

// outdirFlag is the -o of a cdk command line.
var outdirFlag = regexp.MustCompile(`\s-o\s+(\S+)`)

// Every make target that runs the app gives the CLI the same absolute
// output folder as make synth, so what it deploys, diffs, bootstraps or
// destroys is the assembly it has just synthesized, where the CLI reads it.
func TestEveryCDKTargetSynthesizesIntoOneAbsoluteFolder(t *testing.T) {
	out := filepath.Join(t.TempDir(), "assembly")
	stub := t.TempDir()
	cdkLine := func(target string) string {
		t.Helper()
		cmd := exec.Command("make", "--no-print-directory", "-n", target, "STAGE=dev",
			"CDK_OUT="+out, "INFRA_BUILD_DIR="+stub, "CDK_ARGS=-c dbMaxCapacity=6")
		cmd.Dir = ".."
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make -n %s: %v\n%s", target, err, b)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "node_modules/.bin/cdk ") {
				return line
			}
		}
		t.Fatalf("make -n %s runs no cdk command:\n%s", target, b)
		return ""
	}
	for _, target := range []string{"synth", "deploy", "diff", "cdk-bootstrap", "destroy"} {
		line := cdkLine(target)
		m := outdirFlag.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("make %s: no -o: %s", target, line)
			continue
		}
		if m[1] != out {
			t.Errorf("make %s: -o %s, want %s (the folder make synth writes)", target, m[1], out)
		}
		if !strings.Contains(line, "-c dbMaxCapacity=6") || !strings.Contains(line, "-c stage=dev") {
			t.Errorf("make %s does not pass the stage and CDK_ARGS to the app: %s", target, line)
		}
		if !strings.Contains(line, "-c buildDir="+stub) {
			t.Errorf("make %s does not synthesize against INFRA_BUILD_DIR: %s", target, line)
		}
	}
}
