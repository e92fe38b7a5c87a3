// Package logging builds the process logger from its settings. Each main
// builds one and may make it the default; libraries never set the default.
package logging

import (
	"io"
	"log/slog"
	"os"

	"regintel/shared/config"
)

// New returns the process logger: JSON on stdout under Lambda (CloudWatch
// parses it), text on stderr locally. An unknown level means info.
func New(cfg config.Log) *slog.Logger {
	if cfg.Format == "json" {
		return newLogger(cfg, os.Stdout)
	}
	return newLogger(cfg, os.Stderr)
}

func newLogger(cfg config.Log, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.Level))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
