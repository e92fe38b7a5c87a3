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
	if c.ContextTokenBudget != 0 || c.ContextRequestTTL != 15*time.Minute || c.PIIRedaction != "both" || c.PromptSheetsDir != "" {
		t.Fatalf("defaults = %d %v %q %q", c.ContextTokenBudget, c.ContextRequestTTL, c.PIIRedaction, c.PromptSheetsDir)
	}
	t.Setenv("CONTEXT_TOKEN_BUDGET", "8000")
	t.Setenv("CONTEXT_REQUEST_TTL", "5m")
	t.Setenv("PII_REDACTION", "store")
	t.Setenv("PROMPT_SHEETS_DIR", "/etc/sheets")
	if c, err = FromEnv(); err != nil || c.ContextTokenBudget != 8000 || c.ContextRequestTTL != 5*time.Minute || c.PIIRedaction != "store" || c.PromptSheetsDir != "/etc/sheets" {
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
