// Command eval is `make eval`: it wires the backend from the environment
// as `make dev` does (the seeded graph and the offline model unless
// configured otherwise), asks the golden set through the chat route, prints
// the scores and writes them as JSON. With a real model (OPENAI_API_KEY)
// it also scores the answers' numbers and abstentions.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"regintel/shared/app"
	"regintel/shared/config"
	"regintel/shared/eval"
)

func main() {
	out := flag.String("out", ".testenv/eval/latest.json", "where to write the JSON report")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := run(*out, log); err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
}

func run(out string, log *slog.Logger) error {
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	cfg.LLM.OfflineWordDelay = 0 // the eval scores grounding, not pacing
	ctx := context.Background()
	a, err := app.Build(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.Close()
	items, err := eval.Golden()
	if err != nil {
		return err
	}
	rep := eval.Run(ctx, eval.Client{Handler: a.Handler}, items, eval.Options{Today: time.Now(), Model: cfg.LLM.Provider != "offline"})
	if err := rep.WriteTable(os.Stdout); err != nil {
		return err
	}
	fmt.Println("report:", out)
	return rep.WriteJSON(out)
}
