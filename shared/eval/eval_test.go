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
	"regintel/shared/graph/seeddata"
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

// Both splits run end to end through the `make dev` wiring: every question
// is answered and scored (the scores themselves are `make eval`'s to report
// against the thresholds, not this test's).
func TestBothSplitsRunThroughTheChatRoute(t *testing.T) {
	h := localApp(t).Handler
	for split, load := range map[string]func() ([]eval.Item, error){eval.SplitDev: eval.Dev, eval.SplitHeldout: eval.Heldout} {
		items, err := load()
		if err != nil {
			t.Fatal(err)
		}
		scoredEverything(t, eval.Run(context.Background(), eval.Client{Handler: h}, items, options(t, split)))
	}
}

// The same on the Bolt store, loaded with the dataset as the graph seed
// step loads it.
func TestDevSplitRunsOnBolt(t *testing.T) {
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
	scoredEverything(t, eval.Run(ctx, eval.Client{Handler: offlineHandler(store, store)}, golden(t), options(t, eval.SplitDev)))
}

// options scores a split against the kept pages and the dataset.
func options(t *testing.T, split string) eval.Options {
	t.Helper()
	pages, err := eval.StoredPages()
	if err != nil {
		t.Fatal(err)
	}
	ds, err := seeddata.Load()
	if err != nil {
		t.Fatal(err)
	}
	return eval.Options{Split: split, Today: time.Now(), Pages: pages, Dataset: &ds}
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
	// A loaded machine can take seconds over a cold Neo4j's first queries;
	// the verdict must not depend on its speed.
	cfg := chat.Config{Model: model, GraphTimeout: time.Minute}
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

// scoredEverything checks a run answered and scored every question.
func scoredEverything(t *testing.T, rep eval.Report) {
	t.Helper()
	var table strings.Builder
	_ = rep.WriteTable(&table)
	t.Log("\n" + table.String())
	s := rep.Summary
	if s.Errors > 0 {
		t.Errorf("%d questions failed", s.Errors)
	}
	if s.RecallAtK.Of != s.Questions || s.NoStaleAsCurrent.Of != s.Questions || s.CitationValidity.Of == 0 {
		t.Errorf("%s: recall scored on %d, no-stale on %d of %d questions, %d citations", rep.Split, s.RecallAtK.Of, s.NoStaleAsCurrent.Of, s.Questions, s.CitationValidity.Of)
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
// recall and as-of accuracy fall below the same graph's grounded by date.
func TestEvalCatchesGroundingThatIgnoresTheDate(t *testing.T) {
	mem, err := graphmem.NewSeeded(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	o := eval.Options{Split: eval.SplitDev, Today: time.Now()}
	dated := eval.Run(context.Background(), eval.Client{Handler: offlineHandler(mem, mem)}, golden(t), o).Summary
	rep := eval.Run(context.Background(), eval.Client{Handler: offlineHandler(undatedGraph{mem}, mem)}, golden(t), o)
	if s := rep.Summary; s.AsOfAccuracy.Hits >= dated.AsOfAccuracy.Hits || s.RecallAtK.Hits >= dated.RecallAtK.Hits || s.AsOfDetection.Rate < 0.95 {
		t.Fatalf("undated: recall %d, as-of accuracy %d, detection %.3f; dated: recall %d, as-of accuracy %d",
			s.RecallAtK.Hits, s.AsOfAccuracy.Hits, s.AsOfDetection.Rate, dated.RecallAtK.Hits, dated.AsOfAccuracy.Hits)
	}
	for _, r := range rep.Results {
		if r.ID == "ie-prsi-2023" && (r.AsOfAccurate == nil || *r.AsOfAccurate) {
			t.Fatalf("PRSI in 2023 grounded as of today scored %+v", r)
		}
	}
}
