package config

import (
	"strings"
	"testing"
)

func clearEnv(t *testing.T) {
	for _, k := range []string{"AWS_LAMBDA_RUNTIME_API", "AUTH_MODE", "LLM_PROVIDER", "OPENAI_API_KEY", "OPENAI_SECRET_ARN",
		"OPENAI_BASE_URL", "LLM_MODEL", "JWT_JWKS_URL", "JWT_HS256_SECRET", "PORT", "LOG_FORMAT", "DATABASE_URL", "HISTORY_TURNS"} {
		t.Setenv(k, "")
	}
}

func TestLocalDefaults(t *testing.T) {
	clearEnv(t)
	c, err := FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if c.Port != 8080 || c.AuthMode != "dev" || c.LLMProvider != "offline" || c.LogFormat != "text" || c.HistoryTurns != 5 || c.MaxActiveNodes != 50 {
		t.Fatalf("defaults: %+v", c)
	}
	t.Setenv("OPENAI_API_KEY", "sk-test")
	if c, _ = FromEnv(); c.LLMProvider != "openai" {
		t.Fatalf("with a key the provider should default to openai, got %s", c.LLMProvider)
	}
}

func TestLambdaRefusesDevAuthAndDefaultsToJSONAndJWT(t *testing.T) {
	clearEnv(t)
	t.Setenv("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001")
	t.Setenv("AUTH_MODE", "dev")
	c, err := FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckAuth(); err == nil || !strings.Contains(err.Error(), "refused under Lambda") {
		t.Fatalf("dev auth under Lambda: err = %v", err)
	}
	t.Setenv("AUTH_MODE", "")
	if c, _ = FromEnv(); c.CheckAuth() == nil || !strings.Contains(c.CheckAuth().Error(), "JWT_JWKS_URL") {
		t.Fatalf("jwt without keys accepted")
	}
	t.Setenv("JWT_HS256_SECRET", "s")
	c, err = FromEnv()
	if err != nil || c.CheckAuth() != nil || c.AuthMode != "jwt" || c.LogFormat != "json" {
		t.Fatalf("lambda config: %+v %v", c, err)
	}
}

func TestRejectsBadValues(t *testing.T) {
	for k, v := range map[string]string{"PORT": "eighty", "LLM_PROVIDER": "gemini", "AUTH_MODE": "none", "HISTORY_TURNS": "-1", "ENRICHMENT_FRESHNESS_DAYS": "0"} {
		t.Run(k, func(t *testing.T) {
			clearEnv(t)
			t.Setenv(k, v)
			if _, err := FromEnv(); err == nil {
				t.Fatalf("%s=%s accepted", k, v)
			}
		})
	}
}
