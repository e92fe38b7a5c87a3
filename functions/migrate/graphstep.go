package main

import (
	"context"
	"encoding/json"
	"log/slog"

	"regintel/shared/app"
	"regintel/shared/config"
	"regintel/shared/dbsetup/graphsetup"
)

type graphStep struct {
	cfg config.Graph
	log *slog.Logger
}

// Invoke opens the graph for this invocation only, runs the graph step and
// answers its outcome.
func (g graphStep) Invoke(ctx context.Context, _ []byte) ([]byte, error) {
	store, closeGraph, err := app.OpenGraph(ctx, g.cfg, g.log)
	if err != nil {
		g.log.Error("graph step: open", "err", err)
		return nil, err
	}
	defer closeGraph()
	out, err := graphsetup.Run(ctx, store)
	if err != nil {
		g.log.Error("graph step failed", "err", err)
		return nil, err
	}
	g.log.Info("graph step: schema applied, dataset loaded", "concepts", out.Concepts, "written", out.Written)
	return json.Marshal(out)
}
