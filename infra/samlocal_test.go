package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSAMLocalStartsEveryFunction reproduces `make sam-invoke` without
// Docker: the template is synthesized, the SAM CLI's own code computes each
// function's container environment from it and events/sam-env.json, and
// each bootstrap runs under the Lambda runtime interface emulator with
// exactly that environment, invoked with its events/ sample. Enrichment is
// invoked with an empty batch: its sample would fetch official sources
// from the internet.
func TestSAMLocalStartsEveryFunction(t *testing.T) {
	python := samPython(t)
	dbURL := testDatabaseURL(t)
	bins := buildForEmulator(t)
	envFile := samEnvFile(t, dbURL)
	variants := map[string]*synthesized{"dev": dev(t), "dev-with-graph": memgraphBySG(t), "prod-every-option": prod(t)}
	for _, name := range []string{"dev", "dev-with-graph", "prod-every-option"} {
		t.Run(name, func(t *testing.T) {
			envs := samEnvironments(t, python, variants[name], envFile)
			for _, f := range deployedFunctions(variants[name].stack.cfg, functionSpecs) {
				env, ok := envs[logicalID(f.Name)]
				if !ok {
					t.Errorf("SAM sees no %s among %v", logicalID(f.Name), sortedKeys(envs))
					continue
				}
				t.Run(f.Name, func(t *testing.T) { invokeUnderEmulator(t, bins, f, env) })
			}
		})
	}
}

func samPython(t *testing.T) string {
	venv := os.Getenv("INFRA_VENV")
	if venv == "" {
		venv = filepath.Join("..", ".testenv", "infra-venv")
	}
	python := filepath.Join(venv, "bin", "python")
	if _, err := os.Stat(python); err != nil {
		need(t, "the SAM CLI (make infra-tools)")
	}
	return python
}

func testDatabaseURL(t *testing.T) string {
	u := os.Getenv("TEST_DATABASE_URL")
	if u == "" {
		need(t, "the test Postgres (bash scripts/test-servers.sh start; . .testenv/env)")
	}
	return u
}

// need skips, or fails when the test servers and tools are required.
func need(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("REQUIRE_TEST_SERVERS") == "1" {
		t.Fatalf("needs %s", what)
	}
	t.Skipf("needs %s", what)
}

// samEnvFile is events/sam-env.json with the test Postgres in place of the
// developer's local one.
func samEnvFile(t *testing.T, dbURL string) string {
	b, err := os.ReadFile(filepath.Join("..", "events", "sam-env.json"))
	if err != nil {
		t.Fatal(err)
	}
	var overrides map[string]map[string]string
	if err := json.Unmarshal(b, &overrides); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range overrides {
		if _, ok := fn["DB_PORT"]; !ok {
			continue
		}
		fn["DB_HOST"], fn["DB_PORT"], fn["DB_NAME"] = u.Hostname(), u.Port(), strings.TrimPrefix(u.Path, "/")
		// Only where the file names a user: the sweep signs in as the
		// template's own role, which migrate creates.
		if _, ok := fn["DB_USER"]; ok {
			fn["DB_USER"] = u.User.Username()
		}
	}
	path := filepath.Join(t.TempDir(), "sam-env.json")
	b, _ = json.Marshal(overrides)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// samEnvironments runs SAM's code on the template: logical id -> environment.
func samEnvironments(t *testing.T, python string, s *synthesized, envFile string) map[string]map[string]string {
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "template.json")
	b, _ := json.Marshal(withoutServerlessApps(s.json))
	if err := os.WriteFile(tmpl, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, filepath.Join("samlocal", "sam_env.py"), tmpl, envFile)
	// A clean environment, so the shell's variables do not leak into the
	// functions' (SAM reads them), and no instance-metadata probe.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "AWS_EC2_METADATA_DISABLED=true",
		"AWS_REGION=eu-west-1", "AWS_DEFAULT_REGION=eu-west-1", "SAM_CLI_TELEMETRY=0"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sam_env.py: %v\n%s", err, stderr.String())
	}
	var envs map[string]map[string]string
	if err := json.Unmarshal(out, &envs); err != nil {
		t.Fatalf("sam_env.py output: %v\n%s", err, out)
	}
	return envs
}

// withoutServerlessApps drops the master-secret rotation's Serverless
// Application Repository app: SAM would fetch its template from AWS, with
// credentials, before computing anything, and it sets no function's
// environment. A real `sam local` on such a template needs credentials.
func withoutServerlessApps(tmpl map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range tmpl {
		out[k] = v
	}
	resources := map[string]any{}
	for id, r := range tmpl["Resources"].(map[string]any) {
		if r.(map[string]any)["Type"] != "AWS::Serverless::Application" {
			resources[id] = r
		}
	}
	out["Resources"] = resources
	return out
}

type emulatorBins struct{ dir string }

var buildOnce sync.Once

// buildForEmulator builds every bootstrap for this machine and the
// emulator, from the root module.
func buildForEmulator(t *testing.T) emulatorBins {
	dir := filepath.Join(stubBuild(), "..", filepath.Base(stubBuild())+"-emulator")
	var buildErr error
	buildOnce.Do(func() {
		// The functions build in the repository's module, the emulator in
		// its own (tools/rie).
		build := func(module, out string, args ...string) error {
			cmd := exec.Command("go", append([]string{"build", "-o", filepath.Join(dir, out)}, args...)...)
			cmd.Dir = module
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if b, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("build %s: %v\n%s", out, err, b)
			}
			return nil
		}
		if buildErr = build("../tools/rie", "aws-lambda-rie", "github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie"); buildErr != nil {
			return
		}
		for _, b := range binaries(functionSpecs) {
			if buildErr = build("..", filepath.Join(b, "bootstrap"), "-tags", "lambda.norpc", "./functions/"+b); buildErr != nil {
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	t.Cleanup(func() {})
	return emulatorBins{dir: dir}
}

// samples: the events/ file each function is invoked with.
var samples = map[string]string{
	"chat": "chat-turn.json", "resolve-concepts": "sqs-concepts.json", "migrate": "migrate.json", "sweep": "sweep-schedule.json",
	"graph-setup": "migrate.json",
}

func invokeUnderEmulator(t *testing.T, bins emulatorBins, f functionSpec, env map[string]string) {
	event := []byte(`{"Records": []}`) // enrich: an empty batch (its sample fetches the internet)
	if name, ok := samples[f.Name]; ok {
		var err error
		if event, err = os.ReadFile(filepath.Join("..", "events", name)); err != nil {
			t.Fatal(err)
		}
	}
	body, logs := runUnderEmulator(t, bins, f.binary(), env, event)
	if bytes.Contains(body, []byte(`"errorType"`)) || bytes.Contains(body, []byte(`"errorMessage"`)) {
		t.Fatalf("%s failed: %s\nlogs:\n%s", f.Name, body, logs)
	}
	if want := expectedAnswer[f.Name]; !bytes.Contains(body, []byte(want)) {
		t.Fatalf("%s answered %q, want it to contain %q\nlogs:\n%s", f.Name, body, want, logs)
	}
}

// runUnderEmulator starts function's bootstrap under the runtime interface
// emulator with exactly env, invokes it once with event and returns its
// answer and everything it logged.
func runUnderEmulator(t *testing.T, bins emulatorBins, function string, env map[string]string, event []byte) (body []byte, logs string) {
	emulatorAddr, runtimeAddr := freeAddr(t), freeAddr(t)
	cmd := exec.Command(filepath.Join(bins.dir, "aws-lambda-rie"),
		"--runtime-interface-emulator-address", emulatorAddr, "--runtime-api-address", runtimeAddr,
		filepath.Join(bins.dir, function, "bootstrap"))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "AWS_EC2_METADATA_DISABLED=true"}
	for _, k := range sortedKeys(env) {
		cmd.Env = append(cmd.Env, k+"="+env[k])
	}
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	t.Cleanup(stop)
	body = invokeWhenReady(t, "http://"+emulatorAddr+"/2015-03-31/functions/function/invocations", event, &out)
	stop()
	return body, out.String()
}

// syncBuffer is a bytes.Buffer the emulator's two output streams and the
// test can share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// expectedAnswer is a piece of each function's answer to its sample.
var expectedAnswer = map[string]string{
	"chat":             "event: done",
	"resolve-concepts": `{"batchItemFailures":null}`, // no failed record
	"enrich":           `{"batchItemFailures":null}`,
	"migrate":          `"version"`,
	"graph-setup":      `"schemaApplied":true`, // on the in-memory graph: sam-env.json sets no MEMGRAPH_URI
	"sweep":            "{",
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func invokeWhenReady(t *testing.T, url string, event []byte, logs *syncBuffer) []byte {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(event))
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return b
		}
		if ctx.Err() != nil {
			t.Fatalf("emulator never answered: %v\nlogs:\n%s", err, logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}
