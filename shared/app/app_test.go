package app

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"regintel/shared/config"
	"regintel/shared/graph"
	"regintel/shared/llm"
	"regintel/shared/queue"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func localConfig(t *testing.T) config.Config {
	t.Helper()
	for _, k := range []string{"AWS_LAMBDA_RUNTIME_API", "DATABASE_URL", "DB_HOST", "MEMGRAPH_URI", "OPENAI_API_KEY", "LLM_PROVIDER",
		"AUTH_MODE", "CONCEPTS_QUEUE_URL", "PROMPT_SHEETS_DIR"} {
		t.Setenv(k, "")
	}
	cfg, err := config.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The `make dev` wiring: no settings, embedded store and graph, offline
// model; a chat turn streams and captures concepts from the lexicon.
func TestEmbeddedDefaultsServeAChatTurn(t *testing.T) {
	a, err := Build(context.Background(), localConfig(t), quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	srv := httptest.NewServer(a.Handler)
	defer srv.Close()
	if resp, err := http.Get(srv.URL + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	resp, err := http.Post(srv.URL+"/chat", "application/json", strings.NewReader(`{"message":"How much VRT is due on an imported car?"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	// The offline model captures VRT first and answers in a second call; the
	// captured VEHICLE_REG:IE:VRT resolves to the seeded graph's TAX:IE:VRT.
	for _, want := range []string{"event: message", `"referencedNodes":["TAX:IE:VRT"]`, `"modelCalls":2`, `"model":"offline-lexicon-v1"`, `"status":"ok"`} {
		if !strings.Contains(string(body), want) {
			t.Fatalf("stream lacks %s:\n%s", want, body)
		}
	}
}

func TestBadPromptSheetFailsStartUpWithFileAndLine(t *testing.T) {
	dir := t.TempDir()
	entries, err := os.ReadDir(filepath.Join("..", "prompt", "sheets", "default"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join("..", "prompt", "sheets", "default", e.Name()))
		if strings.Contains(e.Name(), "jurisdiction") {
			b = append(b, []byte("\n{{ if .Jurisdictions }}unterminated\n")...)
		}
		_ = os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644)
	}
	cfg := localConfig(t)
	cfg.Chat.PromptSheetsDir = dir
	_, err = Build(context.Background(), cfg, quiet())
	if err == nil || !strings.Contains(err.Error(), "jurisdiction") || !strings.Contains(err.Error(), "20_jurisdiction.tmpl:8") {
		t.Fatalf("bad sheet: err = %v", err)
	}
	t.Log(err)
}

// Every route of the table is wired on the embedded defaults (none answers
// 501), and a browser on a configured origin may send X-Stream-Protocol.
func TestEmbeddedDefaultsWireEveryRouteAndCORS(t *testing.T) {
	cfg := localConfig(t)
	cfg.Chat.CORSOrigins = []string{"https://app.example.com"}
	a, err := Build(context.Background(), cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	srv := httptest.NewServer(a.Handler)
	defer srv.Close()
	for _, path := range []string{"/conversations", "/graph/nodes?ids=TAX:IE:VAT"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
		}
	}
	req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/chat", nil)
	req.Header.Set("Origin", "https://app.example.com")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type,x-stream-protocol")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if allowed := resp.Header.Get("Access-Control-Allow-Headers"); resp.StatusCode != http.StatusNoContent || !strings.Contains(allowed, "X-Stream-Protocol") {
		t.Fatalf("preflight: %d, allowed headers %q", resp.StatusCode, allowed)
	}
}

// The graph is additive: with MEMGRAPH_URI pointing at a server that is
// down, the backend still starts (Bolt connects on first use) and serves.
func TestStartsWithTheGraphDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg := localConfig(t)
	cfg.Graph.URI = "bolt://" + addr
	start := time.Now()
	a, err := Build(context.Background(), cfg, quiet())
	if err != nil {
		t.Fatalf("start with the graph down: %v", err)
	}
	defer a.Close()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("start took %s with the graph down", took)
	}
	srv := httptest.NewServer(a.Handler)
	defer srv.Close()
	if resp, err := http.Get(srv.URL + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
}

// With a real model and no enrichment queue, Build runs the in-process
// enrichment it is given (cmd/dev); without one, it starts none.
func TestInProcessEnrichmentOnlyWhenGiven(t *testing.T) {
	cfg := localConfig(t)
	cfg.LLM.Provider, cfg.LLM.APIKey, cfg.LLM.Model = "openai", "test-key", "gpt-test"
	a, err := Build(context.Background(), cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	a.Close()

	started, stopped := 0, 0
	start := func(config.Config, graph.ConceptStore, llm.Provider, *slog.Logger) (queue.Publisher, func(), error) {
		started++
		return nil, func() { stopped++ }, nil
	}
	a, err = Build(context.Background(), cfg, quiet(), WithInProcessEnrichment(start))
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	if started != 1 || stopped != 1 {
		t.Fatalf("in-process enrichment started %d and stopped %d times, want 1 and 1", started, stopped)
	}

	cfg = localConfig(t) // the offline model cannot enrich
	a, err = Build(context.Background(), cfg, quiet(), WithInProcessEnrichment(start))
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	if started != 1 {
		t.Fatalf("in-process enrichment started with the offline model")
	}
}

// A daily cost cap with a model that has no price could never be applied:
// the process does not start.
func TestCostCapNeedsAPricedModel(t *testing.T) {
	cfg := localConfig(t)
	cfg.Chat.DailyCostLimitUSD = 5
	if _, err := Build(context.Background(), cfg, quiet()); err == nil || !strings.Contains(err.Error(), "LLM_PRICES") {
		t.Fatalf("a cost cap on the unpriced %s: err = %v", cfg.LLM.Model, err)
	}
	cfg.LLM.Prices = map[string]config.ModelPrice{cfg.LLM.Model: {Input: 1, Output: 1}}
	a, err := Build(context.Background(), cfg, quiet())
	if err != nil {
		t.Fatalf("a cost cap on a priced model: %v", err)
	}
	a.Close()
}
