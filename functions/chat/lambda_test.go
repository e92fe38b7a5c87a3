package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"regintel/shared/auth"
	"regintel/shared/dbsetup"
	"regintel/shared/llm/llmtest"
	"regintel/shared/pgpool"
	"regintel/shared/pgpool/pgtest"
	"regintel/shared/testenv"
)

// TestLambdaPathThroughRuntimeEmulator builds the real bootstrap, runs it
// under the AWS Lambda Runtime Interface Emulator (as Lambda and sam local
// do) and invokes it with events/chat-turn.json. The emulator returns the
// streamed response buffered: a JSON prelude, eight NUL bytes, the body.
func TestLambdaPathThroughRuntimeEmulator(t *testing.T) {
	testenv.BuildsBinary(t)
	dbURL, pool := migratedDatabase(t)

	fake := llmtest.NewServer(t)
	fake.Enqueue(llmtest.Script{Steps: llmtest.Steps(
		llmtest.Words("Restaurant meals are charged at the 13.5% reduced rate."),
		llmtest.ToolCallJSON("capture_concepts", map[string]any{"concepts": []map[string]any{{
			"domain": "TAX", "kind": "VAT", "jurisdiction": "IE", "prefLabel": "Value-Added Tax"}}}, 4),
	)})

	invokeURL, logs := startUnderEmulator(t, lambdaEnv(fake.BaseURL(), dbURL))
	event, err := os.ReadFile("../../events/chat-turn.json")
	if err != nil {
		t.Fatal(err)
	}
	body := invokeWhenReady(t, invokeURL, event, logs)

	names, text, meta := readBufferedStream(t, body, logs)
	if text != "Restaurant meals are charged at the 13.5% reduced rate." {
		t.Fatalf("streamed text %q (events %v)", text, names)
	}
	if names[len(names)-1] != "done" || meta.TurnNumber != 1 || meta.ConversationID == "" || len(meta.ReferencedNodes) != 1 {
		t.Fatalf("events %v metadata %+v", names, meta)
	}
	// The turn was stored under the tenant of the token, not of the body.
	var n int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM conversation_turns WHERE tenant_id = $1 AND conversation_id = $2",
		auth.TenantUUID("tenant-sam"), meta.ConversationID).Scan(&n); err != nil || n != 1 {
		t.Fatalf("stored turns = %d (%v)", n, err)
	}
	// The persona in the user's words is fenced data, not instructions.
	if reqs := fake.Requests(); len(reqs) != 1 || strings.Contains(reqs[0].System, "single-director company") ||
		!strings.Contains(reqs[0].Messages[0].Content, "single-director company") {
		t.Fatalf("model requests = %d", len(reqs))
	}
	if strings.Contains(logs.String(), "sam-local-test-secret") || strings.Contains(logs.String(), "restaurant meals") {
		t.Fatal("logs contain a secret or chat text")
	}
}

// migratedDatabase is a fresh migrated database's URL and a pool on it.
func migratedDatabase(t *testing.T) (string, *pgxpool.Pool) {
	t.Helper()
	dbURL := pgtest.NewDatabase(t)
	pool, err := pgpool.NewPool(context.Background(), pgpool.Config{URL: dbURL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := dbsetup.ApplyMigrations(context.Background(), pool); err != nil {
		t.Fatal(err)
	}
	return dbURL, pool
}

// lambdaEnv is the function's environment as sam local sets it, on the fake
// model at llmURL and the database at dbURL, plus extra.
func lambdaEnv(llmURL, dbURL string, extra ...string) []string {
	return append([]string{
		"AUTH_MODE=jwt",
		"JWT_HS256_SECRET=sam-local-test-secret-not-for-production",
		"JWT_ISSUER=regintel-local",
		"JWT_AUDIENCE=regintel-local",
		"LLM_PROVIDER=openai",
		"OPENAI_API_KEY=test-key",
		"OPENAI_BASE_URL=" + llmURL,
		"LLM_MODEL=gpt-test",
		"DATABASE_URL=" + dbURL,
	}, extra...)
}

type streamMetadata struct {
	ConversationID  string   `json:"conversationId"`
	TurnNumber      int      `json:"turnNumber"`
	ReferencedNodes []string `json:"referencedNodes"`
}

// readBufferedStream checks the emulator's prelude is a 200 event stream
// and reads the body after it: the event names in order, the streamed
// text and the metadata.
func readBufferedStream(t *testing.T, body []byte, logs *bytes.Buffer) (names []string, text string, meta streamMetadata) {
	t.Helper()
	prelude, stream, ok := bytes.Cut(body, make([]byte, 8))
	if !ok {
		t.Fatalf("no streaming prelude in %q\nlogs:\n%s", body, logs.String())
	}
	var head struct {
		StatusCode int               `json:"statusCode"`
		Headers    map[string]string `json:"headers"`
	}
	if err := json.Unmarshal(prelude, &head); err != nil {
		t.Fatalf("prelude %q: %v", prelude, err)
	}
	if head.StatusCode != 200 || !strings.HasPrefix(head.Headers["Content-Type"], "text/event-stream") {
		t.Fatalf("prelude = %+v\nlogs:\n%s", head, logs.String())
	}
	var b strings.Builder
	for _, frame := range strings.Split(strings.TrimSpace(string(stream)), "\n\n") {
		var name, data string // a frame's lines come in any order
		for _, line := range strings.Split(frame, "\n") {
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
			} else if v, ok := strings.CutPrefix(line, "data: "); ok {
				data = v
			}
		}
		names = append(names, name)
		switch name {
		case "message":
			var m struct{ Text string }
			_ = json.Unmarshal([]byte(data), &m)
			b.WriteString(m.Text)
		case "metadata":
			_ = json.Unmarshal([]byte(data), &meta)
		}
	}
	return names, b.String(), meta
}

// startUnderEmulator builds the bootstrap and the emulator, starts the
// bootstrap under it with env (plus PATH, HOME and the function's timeout
// and region) and returns the invoke URL and the process's output.
func startUnderEmulator(t *testing.T, env []string) (invokeURL string, logs *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	build := func(out string, args ...string) {
		cmd := exec.Command("go", append([]string{"build", "-o", filepath.Join(dir, out)}, args...)...)
		if out == "aws-lambda-rie" {
			// The emulator is a module of its own, so it builds from there.
			cmd.Dir = "../../tools/rie"
		}
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", out, err, b)
		}
	}
	build("bootstrap", "-tags", "lambda.norpc", ".")
	build("aws-lambda-rie", "github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie")

	emulatorAddr, runtimeAddr := freeAddr(t), freeAddr(t)
	cmd := exec.Command(filepath.Join(dir, "aws-lambda-rie"),
		"--runtime-interface-emulator-address", emulatorAddr, "--runtime-api-address", runtimeAddr,
		filepath.Join(dir, "bootstrap"))
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"AWS_LAMBDA_FUNCTION_TIMEOUT=60",
		"AWS_REGION=eu-west-1",
	}, env...)
	logs = &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return "http://" + emulatorAddr + "/2015-03-31/functions/function/invocations", logs
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func invokeWhenReady(t *testing.T, url string, event []byte, logs *bytes.Buffer) []byte {
	t.Helper()
	client := &http.Client{Timeout: 60 * time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := client.Post(url, "application/json", bytes.NewReader(event))
		if err == nil {
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return b
		}
		if time.Now().After(deadline) {
			t.Fatalf("emulator never answered: %v\nlogs:\n%s", err, logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}
