// Command eval is `make eval`: it wires the backend from the environment
// as `make dev` does (the seeded graph and the offline model unless
// configured otherwise), asks both splits of the answer key through the
// chat route, prints each split's scores, the key's disagreements with the
// dataset, the dataset's coverage per family and the users' feedback
// (thumbs up and down on stored answers, from Postgres when DATABASE_URL is
// set), and writes the reports as JSON. It exits non-zero when the heldout split is below its thresholds or
// the key and the dataset disagree. With a real model (OPENAI_API_KEY) it
// also scores the answers' numbers.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"regintel/shared/app"
	"regintel/shared/config"
	"regintel/shared/eval"
	"regintel/shared/graph/seeddata"
	"regintel/shared/pgpool"
)

func main() {
	out := flag.String("out", ".testenv/eval/latest.json", "where to write the JSON report")
	examples := flag.String("examples", "shared/calc/testdata/worked_examples.json", "the calculators' worked examples")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	failures, err := run(*out, *examples, os.Stdout, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
	if len(failures) > 0 {
		for _, f := range failures {
			fmt.Fprintln(os.Stderr, "eval: FAIL", f)
		}
		os.Exit(1)
	}
}

// run scores both splits and returns what fails the run.
func run(out, examplesPath string, w io.Writer, log *slog.Logger) ([]string, error) {
	cfg, err := config.FromEnv()
	if err != nil {
		return nil, err
	}
	cfg.LLM.OfflineWordDelay = 0 // the eval scores grounding, not pacing
	ctx := context.Background()
	a, err := app.Build(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	// Read before the eval's own turns are stored (they are left out).
	feedback, err := readFeedback(ctx, cfg)
	if err != nil {
		return nil, err
	}
	ds, err := seeddata.Load()
	if err != nil {
		return nil, err
	}
	pages, err := eval.StoredPages()
	if err != nil {
		return nil, err
	}
	today := time.Now()
	client := eval.Client{Handler: a.Handler}
	reports := map[string]eval.Report{}
	var failures []string
	for _, split := range []struct {
		name string
		load func() ([]eval.Item, error)
	}{{eval.SplitDev, eval.Dev}, {eval.SplitHeldout, eval.Heldout}} {
		items, err := split.load()
		if err != nil {
			return nil, err
		}
		rep := eval.Run(ctx, client, items, eval.Options{Split: split.name, Today: today, Model: cfg.LLM.Provider != "offline", Pages: pages, Dataset: &ds})
		if err := rep.WriteTable(w); err != nil {
			return nil, err
		}
		fmt.Fprintln(w)
		reports[split.name] = rep
		if rep.Summary.Disagreements > 0 {
			failures = append(failures, fmt.Sprintf("%s: %d disagreements between the key and the dataset", split.name, rep.Summary.Disagreements))
		}
		if split.name == eval.SplitHeldout {
			failures = append(failures, rep.Below(eval.HeldoutBars)...)
		}
	}
	if err := calculators(ctx, w, client, examplesPath); err != nil {
		return nil, err
	}
	fmt.Fprintln(w, "coverage of the dataset per family")
	if err := eval.WriteCoverage(w, eval.Coverage(ds, today)); err != nil {
		return nil, err
	}
	return failures, writeFeedbackAndJSON(w, out, feedback, reports)
}

// writeFeedbackAndJSON prints the feedback line and writes the JSON report:
// each split's scores under its name, the feedback under "feedback".
func writeFeedbackAndJSON(w io.Writer, out string, feedback eval.Feedback, reports map[string]eval.Report) error {
	if err := eval.WriteFeedback(w, feedback); err != nil {
		return err
	}
	fmt.Fprintln(w, "report:", out)
	report := map[string]any{"feedback": feedback}
	for name, rep := range reports {
		report[name] = rep
	}
	return eval.WriteJSON(out, report)
}

// readFeedback counts the users' feedback in the configured Postgres; with
// none configured it is empty (the report says there is no store), and
// with a role that cannot see every tenant's rows it says why it is not
// counted.
func readFeedback(ctx context.Context, cfg config.Config) (eval.Feedback, error) {
	if cfg.Postgres.URL == "" {
		return eval.Feedback{}, nil
	}
	pool, err := pgpool.NewPool(ctx, app.PostgresConfig(cfg.Postgres))
	if err != nil {
		return eval.Feedback{}, fmt.Errorf("feedback: %w", err)
	}
	defer pool.Close()
	f, err := eval.ReadFeedback(ctx, pool)
	if errors.Is(err, eval.ErrFeedbackHidden) {
		return eval.Feedback{Store: "postgres", Unread: err.Error()}, nil
	}
	return f, err
}

// calculators prints the calculator section: every published worked
// example through POST /calculate.
func calculators(ctx context.Context, w io.Writer, client eval.Client, examplesPath string) error {
	examples, err := eval.LoadWorkedExamples(examplesPath)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "calculators: published worked examples through POST /calculate")
	if err := eval.WriteCalcTable(w, eval.ScoreCalculators(ctx, client, examples)); err != nil {
		return err
	}
	_, err = fmt.Fprintln(w)
	return err
}
