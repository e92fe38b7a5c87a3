// Command chat is the chat Lambda function (Function URL, RESPONSE_STREAM)
// and, outside Lambda, a local server without in-process enrichment (the
// loadtest and contract runs use it; `make dev` runs cmd/dev, which adds it).
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambdaurl"

	"regintel/shared/app"
	"regintel/shared/config"
	"regintel/shared/logging"
	"regintel/shared/tracing"
)

func main() {
	cfg, err := config.FromEnv()
	log := logging.New(cfg.Log)
	slog.SetDefault(log)
	if err != nil {
		log.Error("chat: invalid configuration", "err", err)
		os.Exit(1)
	}
	stopTracing := app.StartTracing(context.Background(), cfg.Tracing, "chat", log)
	defer stopTracing()
	a, err := app.Build(context.Background(), cfg, log)
	if err != nil {
		log.Error("chat: start", "err", err)
		os.Exit(1)
	}
	defer a.Close()
	if cfg.OnLambda {
		lambdaurl.Start(tracing.FlushAfterHTTP(a.Handler))
		return
	}
	if err := app.ServeLocal(a.Handler, cfg.Port, log); err != nil {
		log.Error("chat: server stopped", "err", err)
		os.Exit(1)
	}
}
