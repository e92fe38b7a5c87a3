package eval_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"regintel/shared/app"
	"regintel/shared/auth"
	"regintel/shared/chat"
	"regintel/shared/config"
	convmem "regintel/shared/conversation/memory"
	"regintel/shared/eval"
	"regintel/shared/graph"
	"regintel/shared/graph/bolt"
	"regintel/shared/graph/graphtest"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/graph/textindex"
	"regintel/shared/httpapi"
	"regintel/shared/llm"
	"regintel/shared/llm/offline"
	"regintel/shared/testenv"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// localApp is the `make dev` wiring: the seeded memory graph, the memory
// conversation store and the offline model, whatever the environment says.
func localApp(t *testing.T) *app.App {
	t.Helper()
	for _, k := range []string{"AWS_LAMBDA_RUNTIME_API", "DATABASE_URL", "DB_HOST", "MEMGRAPH_URI", "OPENAI_API_KEY", "OPENAI_SECRET_ARN",
		"LLM_PROVIDER", "AUTH_MODE", "CONCEPTS_QUEUE_URL", "PROMPT_SHEETS_DIR", "OFFLINE_WORD_DELAY"} {
		t.Setenv(k, "")
	}
	cfg, err := config.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	cfg.LLM.OfflineWordDelay = 0 // the eval scores grounding, not pacing
	a, err := app.Build(context.Background(), cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

func golden(t *testing.T) []eval.Item {
	t.Helper()
	items, err := eval.Golden()
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// The deterministic scores on the memory store meet the published bars.
func TestGoldenSetMeetsThresholds(t *testing.T) {
	meetsBars(t, eval.Run(context.Background(), eval.Client{Handler: localApp(t).Handler}, golden(t), eval.Options{Today: time.Now()}))
}

// The same on the Bolt store, loaded with the dataset as the graph seed
// step loads it.
func TestGoldenSetMeetsThresholdsOnBolt(t *testing.T) {
	uri := testenv.Require(t, "TEST_BOLT_URI")
	ctx := context.Background()
	store, err := bolt.Open(ctx, bolt.Config{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close(ctx) })
	if err := store.ApplySchema(ctx); err != nil {
		t.Fatal(err)
	}
	graphtest.LoadSeed(t, store, time.Now())
	// The server plans the grounding query on its first run, which may
	// take longer than a turn waits for the graph; plan it before scoring.
	if _, err := store.Ground(ctx, graph.GroundingQuery{Text: "VAT", AsOf: time.Now()}); err != nil {
		t.Fatal(err)
	}
	meetsBars(t, eval.Run(ctx, eval.Client{Handler: offlineHandler(store, store)}, golden(t), eval.Options{Today: time.Now()}))
}

// offlineHandler serves the chat and graph routes over g with the memory
// conversation store and the offline model.
func offlineHandler(g chat.Graph, nodes graph.Reader) http.Handler {
	return handler(g, nodes, offline.New(offline.Config{}), offline.ModelName)
}

// modelHandler is offlineHandler with another model, answering only (no
// tools), over the memory graph.
func modelHandler(g *graphmem.Store, provider llm.Provider) http.Handler {
	return handler(g, g, provider, "gpt-test", func(c *chat.Config) { c.Tools = chat.ToolsOff })
}

func handler(g chat.Graph, nodes graph.Reader, provider llm.Provider, model string, tune ...func(*chat.Config)) http.Handler {
	cfg := chat.Config{Model: model}
	for _, f := range tune {
		f(&cfg)
	}
	deps := chat.Deps{Store: convmem.New(), Graph: g, Provider: provider, Log: quiet()}
	// As the app wires it: a text index read from the graph's change feed.
	if feed, ok := g.(graph.ChangeReader); ok {
		words := textindex.New()
		if err := words.Refresh(context.Background(), feed); err == nil {
			deps.Words = words
		}
	}
	engine := chat.New(deps, cfg)
	return httpapi.New(httpapi.Options{Auth: auth.Dev{}, Engine: engine, Graph: nodes, Log: quiet()})
}

func meetsBars(t *testing.T, rep eval.Report) {
	t.Helper()
	var table strings.Builder
	_ = rep.WriteTable(&table)
	t.Log("\n" + table.String())
	s := rep.Summary
	for _, bar := range []struct {
		name string
		m    eval.Metric
		min  float64
	}{
		{"recall@8", s.RecallAtK, 0.9},
		{"as-of accuracy", s.AsOfAccuracy, 0.95},
		{"citation validity", s.CitationValidity, 1.0},
		{"as-of detection", s.AsOfDetection, 0.95},
	} {
		if bar.m.Of == 0 || bar.m.Rate < bar.min {
			t.Errorf("%s %.3f (%d/%d), want at least %.2f", bar.name, bar.m.Rate, bar.m.Hits, bar.m.Of, bar.min)
		}
	}
	if s.Errors > 0 {
		t.Errorf("%d questions failed", s.Errors)
	}
}

// undatedGraph grounds every turn as of today, whatever its date: the
// grounding the assistant had before turns had dates.
type undatedGraph struct{ *graphmem.Store }

func (g undatedGraph) Ground(ctx context.Context, q graph.GroundingQuery) ([]graph.GroundedConcept, error) {
	q.AsOf = time.Time{}
	return g.Store.Ground(ctx, q)
}

// The eval sees the difference the as-of date makes: grounded as of today
// whatever the question, the dated questions get today's values, and
// as-of accuracy falls below its bar.
func TestEvalCatchesGroundingThatIgnoresTheDate(t *testing.T) {
	mem, err := graphmem.NewSeeded(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	rep := eval.Run(context.Background(), eval.Client{Handler: offlineHandler(undatedGraph{mem}, mem)}, golden(t), eval.Options{Today: time.Now()})
	if s := rep.Summary; s.AsOfAccuracy.Rate >= 0.95 || s.AsOfDetection.Rate < 0.95 {
		t.Fatalf("as-of accuracy %.3f, detection %.3f: want accuracy under 0.95 with the date still detected", s.AsOfAccuracy.Rate, s.AsOfDetection.Rate)
	}
	for _, r := range rep.Results {
		if r.ID == "ie-prsi-2023" && (r.AsOfAccurate == nil || *r.AsOfAccurate) {
			t.Fatalf("PRSI in 2023 grounded as of today scored %+v", r)
		}
	}
}
