package app

import (
	"context"
	"log/slog"
	"time"

	"regintel/shared/config"
	"regintel/shared/tracing"
)

// StartTracing installs the span exporter when TRACING=on; the returned
// func flushes and stops it. A bad exporter setup logs and leaves tracing
// off: traces are not worth failing a function for.
func StartTracing(ctx context.Context, cfg config.Tracing, service string, log *slog.Logger) (stop func()) {
	shutdown, err := tracing.Setup(ctx, tracing.Settings{Enabled: cfg.Enabled, Endpoint: cfg.Endpoint, Service: service,
		SampleRatio: cfg.SampleRatio, Log: log})
	if err != nil {
		log.Error("tracing: off, the exporter could not start", "err", err)
		return func() {}
	}
	if cfg.Enabled {
		log.Info("tracing: on, OTLP/HTTP", "service", service, "custom_endpoint", cfg.Endpoint != "", "sample_ratio", cfg.SampleRatio)
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := shutdown(ctx); err != nil {
			log.Warn("tracing: spans not exported at shutdown", "err", err)
		}
	}
}
