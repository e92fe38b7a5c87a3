package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
// missing credentials': a missing build, a refused input.
var notForCredentials = regexp.MustCompile(`bootstrap not found|run .make build|invalid context|stages/[a-z]+\.json|No such file`)

// TestDeployGuideRunsFromAFreshClone runs the deploy-day block of
// infra/README.md from a fresh copy of the committed tree, without AWS
// credentials: every command before the first that needs them must
// succeed, and that one must stop only for the credentials. `make
// deploy-guide-check` runs it (it builds and synthesizes: minutes).
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
		cmd := exec.Command("bash", "-c", line)
		cmd.Dir, cmd.Env = clone, env
		out, err := cmd.CombinedOutput()
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
			t.Errorf("step %d, %q, succeeded without AWS credentials: is it marked right?", i+1, line)
		case notForCredentials.Match(out) || !regexp.MustCompile(`(?i)credential`).Match(out):
			t.Errorf("step %d, %q, failed for another reason than the missing credentials:\n%s", i+1, line, tail)
		default:
			t.Logf("step %d stops for the credentials, as expected: %s", i+1, line)
		}
		return
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
