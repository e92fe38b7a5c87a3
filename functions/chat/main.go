// Command chat is the chat Lambda function (Function URL, RESPONSE_STREAM)
// and, outside Lambda, the local server that `make dev` runs.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambdaurl"

	"regintel/shared/app"
	"regintel/shared/config"
)

func main() {
	cfg, cfgErr := config.FromEnv()
	log := app.NewLogger(cfg)
	slog.SetDefault(log)
	if cfgErr != nil {
		log.Error("invalid configuration", "err", cfgErr)
		os.Exit(1)
	}
	a, err := app.Build(context.Background(), cfg, log)
	if err != nil {
		log.Error("start-up failed", "err", err)
		os.Exit(1)
	}
	defer a.Close()
	if cfg.OnLambda {
		lambdaurl.Start(a.Handler)
		return
	}
	if err := app.ServeLocal(a.Handler, cfg.Port, log); err != nil {
		log.Error("server stopped", "err", err)
		os.Exit(1)
	}
}
