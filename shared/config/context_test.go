package config

import (
	"strings"
	"testing"
	"time"
)

func TestContextSettings(t *testing.T) {
	clearEnv(t)
	for _, k := range []string{"CONTEXT_TOKEN_BUDGET", "CONTEXT_REQUEST_TTL", "PII_REDACTION", "PROMPT_SHEETS_DIR"} {
		t.Setenv(k, "")
	}
	c, err := FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if c.Chat.TokenBudget != 0 || c.Chat.ContextRequestTTL != 15*time.Minute || c.Chat.PIIRedaction != "both" || c.Chat.PromptSheetsDir != "" {
		t.Fatalf("defaults = %d %v %q %q", c.Chat.TokenBudget, c.Chat.ContextRequestTTL, c.Chat.PIIRedaction, c.Chat.PromptSheetsDir)
	}
	t.Setenv("CONTEXT_TOKEN_BUDGET", "8000")
	t.Setenv("CONTEXT_REQUEST_TTL", "5m")
	t.Setenv("PII_REDACTION", "store")
	t.Setenv("PROMPT_SHEETS_DIR", "/etc/sheets")
	if c, err = FromEnv(); err != nil || c.Chat.TokenBudget != 8000 || c.Chat.ContextRequestTTL != 5*time.Minute || c.Chat.PIIRedaction != "store" || c.Chat.PromptSheetsDir != "/etc/sheets" {
		t.Fatalf("set values = %+v, %v", c, err)
	}
	for k, v := range map[string]string{"CONTEXT_TOKEN_BUDGET": "50", "CONTEXT_REQUEST_TTL": "soon", "PII_REDACTION": "some"} {
		t.Run(k, func(t *testing.T) {
			t.Setenv(k, v)
			if _, err := FromEnv(); err == nil || !strings.Contains(err.Error(), k) {
				t.Fatalf("%s=%s: %v", k, v, err)
			}
		})
	}
}
