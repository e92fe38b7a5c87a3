// Package entrypoint is the prologue every command shares: the settings read
// once, the logger, and an exit status that is set only after the command's
// deferred cleanup (tracing flush, pool close) has run.
package entrypoint

import (
	"context"
	"log/slog"
	"os"

	"regintel/shared/config"
	"regintel/shared/logging"
)

// Run is a command's body. Its deferred calls run before the process exits,
// whatever it returns.
type Run func(ctx context.Context, cfg config.Config, log *slog.Logger) error

// Main runs run and exits with status 1 when the settings are invalid or run
// fails, having logged why under the command's name.
func Main(name string, run Run) {
	if err := Execute(context.Background(), name, run); err != nil {
		os.Exit(1)
	}
}

// Execute is Main without the exit: it reads the settings, installs the
// logger as the default and runs run, logging a failure once.
func Execute(ctx context.Context, name string, run Run) error {
	cfg, err := config.FromEnv()
	log := logging.New(cfg.Log)
	slog.SetDefault(log)
	if err != nil {
		log.Error(name+": invalid configuration", "err", err)
		return err
	}
	if err := run(ctx, cfg, log); err != nil {
		log.Error(name+": stopped", "err", err)
		return err
	}
	return nil
}
