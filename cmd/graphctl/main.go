// Command graphctl administers the shared rules graph over Bolt:
//
//	graphctl schema   apply the id uniqueness constraints (and Memgraph indexes)
//	graphctl seed     load the IE/UK/EU seed dataset through the write service
//
// It reads the graph settings: MEMGRAPH_URI, MEMGRAPH_USER, MEMGRAPH_PASSWORD,
// GRAPH_DATABASE and GRAPH_DIALECT (memgraph | neo4j | auto).
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"regintel/shared/app"
	"regintel/shared/config"
	"regintel/shared/dbsetup/graphsetup"
	"regintel/shared/graph/bolt"
	"regintel/shared/graph/seeddata"
	"regintel/shared/graph/write"
	"regintel/shared/logging"
)

func main() {
	if len(os.Args) != 2 || (os.Args[1] != "schema" && os.Args[1] != "seed") {
		fmt.Fprintln(os.Stderr, "usage: graphctl schema|seed")
		os.Exit(2)
	}
	cfg, err := config.FromEnv()
	log := logging.New(cfg.Log)
	slog.SetDefault(log)
	if err != nil {
		log.Error("graphctl: invalid configuration", "err", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if err := run(ctx, os.Args[1], cfg.Graph, log); err != nil {
		log.Error("graphctl failed", "command", os.Args[1], "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, command string, cfg config.Graph, log *slog.Logger) error {
	boltCfg, err := app.GraphConfig(cfg)
	if err != nil {
		return err
	}
	store, err := bolt.Open(ctx, boltCfg)
	if err != nil {
		return err
	}
	defer store.Close(context.Background())

	switch command {
	case "schema":
		if err := store.ApplySchema(ctx); err != nil {
			return err
		}
		log.Info("graph schema applied", "dialect", store.Dialect())
	case "seed":
		ds, err := seeddata.Load()
		if err != nil {
			return err
		}
		written, err := graphsetup.Seed(ctx, write.NewService(store), ds)
		if err != nil {
			return err
		}
		log.Info("graph seeded", "written", written, "concepts", len(ds.Concepts), "edges", len(ds.Edges))
	}
	return nil
}
