package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// guideMarker precedes the deploy-day block in infra/README.md.
const guideMarker = "<!-- deploy-day commands:"

// needsCredentials marks a guide command that talks to AWS.
const needsCredentials = "# needs AWS credentials"

// guideCommands are the deploy-day commands of the README, in order.
func guideCommands(readme string) []string {
	i := strings.Index(readme, guideMarker)
	if i < 0 {
		return nil
	}
	rest := readme[i:]
	start := strings.Index(rest, "```sh\n")
	if start < 0 {
		return nil
	}
	rest = rest[start+len("```sh\n"):]
	var out []string
	sc := bufio.NewScanner(strings.NewReader(rest[:strings.Index(rest, "```")]))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// notForCredentials are failures that are the guide's fault, not the
// missing credentials': a missing build, a refused input, an assembly the
// CLI cannot find or that lacks the stack (it read another folder than the
// app wrote).
var notForCredentials = regexp.MustCompile(`bootstrap not found|run .make build|invalid context|stages/[a-z]+\.json|No such file|ENOENT|(?i)no stacks match|CDK_OUTDIR`)

// forCredentials is how the CDK CLI and the aws CLI say they have no AWS
// credentials (the CDK CLI cannot resolve the account without them).
var forCredentials = regexp.MustCompile(`(?i)credential|Unable to resolve AWS account to use`)

// TestDeployGuideRunsFromAFreshClone runs every step of the deploy-day
// block of infra/README.md from a fresh copy of the committed tree,
// without AWS credentials: a step not marked as needing them must
// succeed; a marked step must fail, and only for the credentials, after
// synthesizing its stack into the assembly it deploys (see
// checkFreshAssembly). `make deploy-guide-check` runs it (it builds and
// synthesizes once per step: many minutes).
func TestDeployGuideRunsFromAFreshClone(t *testing.T) {
	if os.Getenv("DEPLOY_GUIDE_CHECK") != "1" {
		t.Skip("run with make deploy-guide-check")
	}
	clone := freshCopy(t)
	readme, err := os.ReadFile(filepath.Join(clone, "infra", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	commands := guideCommands(string(readme))
	if len(commands) == 0 || !strings.Contains(strings.Join(commands, "\n"), needsCredentials) {
		t.Fatalf("infra/README.md has no deploy-day block with a command marked %q", needsCredentials)
	}
	env := noCredentialsEnv(t)
	for i, line := range commands {
		started := time.Now()
		out, err := runStep(clone, env, line)
		tail := lastLines(out, 30)
		if !strings.Contains(line, needsCredentials) {
			if err != nil {
				t.Fatalf("step %d, %q, failed on a fresh clone: %v\n%s", i+1, line, err, tail)
			}
			t.Logf("step %d ok: %s", i+1, line)
			continue
		}
		switch {
		case err == nil:
			t.Fatalf("step %d, %q, succeeded without AWS credentials: is it marked right?", i+1, line)
		case notForCredentials.Match(out) || !forCredentials.Match(out):
			t.Fatalf("step %d, %q, failed for another reason than the missing credentials:\n%s", i+1, line, tail)
		}
		checkFreshAssembly(t, filepath.Join(clone, "cdk.out"), line, started)
		t.Logf("step %d stopped for the credentials (a target that synthesizes, after writing its own assembly): %s", i+1, line)
	}
}

func runStep(dir string, env []string, line string) ([]byte, error) {
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	return cmd.CombinedOutput()
}

// runsTheApp matches the make targets that synthesize before they talk
// to AWS.
var runsTheApp = regexp.MustCompile(`^make (deploy|diff|destroy|cdk-bootstrap)\b`)

// stageArg is a guide line's STAGE=.
var stageArg = regexp.MustCompile(`\bSTAGE=([a-z]+)`)

// checkFreshAssembly checks that a make step that runs the app (deploy,
// diff, destroy, cdk-bootstrap) left the stage's stack in the root's
// cdk.out, the folder the CLI reads, written after the step started, and
// that a -c key the line passes reached the template.
func checkFreshAssembly(t *testing.T, assembly, line string, started time.Time) {
	t.Helper()
	m := stageArg.FindStringSubmatch(line)
	if !runsTheApp.MatchString(line) || m == nil {
		return // make graph-setup and the like synthesize nothing
	}
	stack := "RegIntel-" + m[1]
	var manifest struct {
		Artifacts map[string]struct {
			Type       string `json:"type"`
			Properties struct {
				TemplateFile string `json:"templateFile"`
			} `json:"properties"`
		} `json:"artifacts"`
	}
	b, err := os.ReadFile(filepath.Join(assembly, "manifest.json"))
	if err != nil {
		t.Fatalf("%q: no assembly where the CLI reads it: %v", line, err)
	}
	if err := json.Unmarshal(b, &manifest); err != nil {
		t.Fatal(err)
	}
	art, ok := manifest.Artifacts[stack]
	if !ok || art.Type != "aws:cloudformation:stack" {
		t.Fatalf("%q: the assembly the CLI reads has no stack %s", line, stack)
	}
	tmplPath := filepath.Join(assembly, art.Properties.TemplateFile)
	st, err := os.Stat(tmplPath)
	if err != nil {
		t.Fatal(err)
	}
	if st.ModTime().Before(started.Add(-time.Second)) {
		t.Fatalf("%q: %s was written at %s, before the step started (%s): a stale assembly", line, tmplPath, st.ModTime(), started)
	}
	if strings.Contains(line, "dbDeletionProtection=false") {
		tmpl, err := os.ReadFile(tmplPath)
		if err != nil {
			t.Fatal(err)
		}
		if got := clusterDeletionProtection(t, tmpl); got {
			t.Fatalf("%q: the template the CLI would deploy has DeletionProtection on: CDK_ARGS were not used", line)
		}
	}
}

// clusterDeletionProtection is the DB cluster's DeletionProtection in a
// template.
func clusterDeletionProtection(t *testing.T, tmpl []byte) bool {
	t.Helper()
	var doc struct {
		Resources map[string]struct {
			Type       string         `json:"Type"`
			Properties map[string]any `json:"Properties"`
		} `json:"Resources"`
	}
	if err := json.Unmarshal(tmpl, &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Resources {
		if r.Type == "AWS::RDS::DBCluster" {
			return r.Properties["DeletionProtection"] == true
		}
	}
	t.Fatal("the template has no DB cluster")
	return false
}

// TestGuideOrderDeploysTheStageJustSynthesized repeats the guide's order
// in this checkout: synth prod, then deploy dev with a -c key. Without
// credentials the deploy stops for them, after synthesizing: the
// assembly it would deploy has the dev stack, with that key. Run by
// `make deploy-guide-check` (two synths: minutes).
func TestGuideOrderDeploysTheStageJustSynthesized(t *testing.T) {
	if os.Getenv("DEPLOY_GUIDE_CHECK") != "1" {
		t.Skip("run with make deploy-guide-check")
	}
	out := filepath.Join(t.TempDir(), "cdk.out")
	env := noCredentialsEnv(t)
	runMake := func(args ...string) ([]byte, error) {
		cmd := exec.Command("make", append([]string{"--no-print-directory", "CDK_OUT=" + out, "INFRA_BUILD_DIR=" + stubBuild()}, args...)...)
		cmd.Dir, cmd.Env = "..", env
		return cmd.CombinedOutput()
	}
	if b, err := runMake("synth", "STAGE=prod"); err != nil {
		t.Fatalf("make synth STAGE=prod: %v\n%s", err, lastLines(b, 30))
	}
	started := time.Now()
	b, err := runMake("deploy", "STAGE=dev", "CDK_ARGS=-c dbMaxCapacity=6")
	switch {
	case err == nil:
		t.Fatal("make deploy STAGE=dev succeeded without AWS credentials")
	case notForCredentials.Match(b) || !forCredentials.Match(b):
		t.Fatalf("make deploy STAGE=dev failed for another reason than the missing credentials:\n%s", lastLines(b, 30))
	}
	checkFreshAssembly(t, out, "make deploy STAGE=dev", started)
	tmpl, err := os.ReadFile(filepath.Join(out, "RegIntel-dev.template.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tmpl), `"MaxCapacity": 6`) {
		t.Error("the dev template the deploy would use lacks dbMaxCapacity=6 from CDK_ARGS")
	}
}

// freshCopy is the committed tree (HEAD), as a clone has it.
func freshCopy(t *testing.T) string {
	dir := t.TempDir()
	archive := exec.Command("git", "archive", "--format=tar", "HEAD")
	archive.Dir = ".."
	tar := exec.Command("tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	tar.Stdin = pipe
	if err := tar.Start(); err != nil {
		t.Fatal(err)
	}
	if err := archive.Run(); err != nil {
		t.Fatal(err)
	}
	if err := tar.Wait(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// noCredentialsEnv is this process's tools (PATH, Go and npm caches)
// without any AWS credential or profile, and no instance-metadata probe.
func noCredentialsEnv(t *testing.T) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") && !strings.HasPrefix(kv, "CDK_") {
			env = append(env, kv)
		}
	}
	empty := filepath.Join(t.TempDir(), "none")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return append(env, "AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE="+empty, "AWS_SHARED_CREDENTIALS_FILE="+empty)
}

func lastLines(b []byte, n int) string {
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// The guide's block parses, names its credential steps, and starts with
// the build the synth and the bootstrap need.
func TestDeployGuideBlock(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	cmds := guideCommands(string(readme))
	if len(cmds) < 3 || !strings.HasPrefix(cmds[0], "make build") {
		t.Fatalf("deploy-day block %q: want make build first", cmds)
	}
	for _, input := range []string{"alarmTopicArn", "openaiSecretArn", "memgraphUri", "corsOrigins", "L-B99A9384", "at least 110", "cloudFront", "graph step"} {
		if !strings.Contains(string(readme), input) {
			t.Errorf("the guide does not name the input %q", input)
		}
	}
}
