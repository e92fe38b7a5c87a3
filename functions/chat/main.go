// Command chat is the chat Lambda function (Function URL, RESPONSE_STREAM)
// and, outside Lambda, a local server without in-process enrichment (the
// loadtest and contract runs use it; `make dev` runs cmd/dev, which adds it).
package main

import (
	"context"
	"log/slog"

	"github.com/aws/aws-lambda-go/lambdaurl"

	"regintel/shared/app"
	"regintel/shared/config"
	"regintel/shared/entrypoint"
	"regintel/shared/tracing"
)

func main() { entrypoint.Main("chat", run) }

func run(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	defer app.StartTracing(ctx, cfg.Tracing, "chat", log)()
	a, err := app.Build(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.Close()
	if cfg.OnLambda {
		lambdaurl.Start(tracing.FlushAfterHTTP(a.Handler))
		return nil
	}
	return app.ServeLocal(a.Handler, cfg.Port, log)
}
