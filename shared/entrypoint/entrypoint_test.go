package entrypoint

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"regintel/shared/config"
)

func TestExecuteRunsDeferredCleanupBeforeReportingFailure(t *testing.T) {
	var cleaned bool
	failure := errors.New("start failed")
	err := Execute(context.Background(), "test", func(context.Context, config.Config, *slog.Logger) error {
		defer func() { cleaned = true }()
		return failure
	})
	if !errors.Is(err, failure) {
		t.Fatalf("Execute = %v, want the run's error", err)
	}
	if !cleaned {
		t.Fatal("the run's deferred cleanup did not run")
	}
}

func TestExecuteRefusesInvalidSettingsWithoutRunning(t *testing.T) {
	t.Setenv("LLM_PROVIDER", "no-such-provider")
	ran := false
	err := Execute(context.Background(), "test", func(context.Context, config.Config, *slog.Logger) error {
		ran = true
		return nil
	})
	if err == nil || ran {
		t.Fatalf("Execute = %v, ran = %v; want an error and no run", err, ran)
	}
}
