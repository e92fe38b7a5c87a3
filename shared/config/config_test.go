package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// clearEnv unsets every variable FromEnv reads, so a test sees only what it sets.
func clearEnv(t *testing.T) {
	for _, k := range []string{"AWS_LAMBDA_RUNTIME_API", "PORT", "LOG_FORMAT", "LOG_LEVEL",
		"DATABASE_URL", "DB_HOST", "DB_PORT", "DB_NAME", "DB_USER", "DB_SSLMODE", "DB_IAM_AUTH", "DB_MAX_CONNS", "DB_STATEMENT_CACHE",
		"MEMGRAPH_URI", "MEMGRAPH_USER", "MEMGRAPH_PASSWORD", "MEMGRAPH_SECRET_ARN", "GRAPH_DATABASE", "GRAPH_DIALECT",
		"LLM_PROVIDER", "OPENAI_API_KEY", "OPENAI_SECRET_ARN", "OPENAI_BASE_URL", "LLM_MODEL", "LLM_TOOLS", "LLM_MAX_CALLS", "LLM_PROMPT_CACHE_RETENTION",
		"AUTH_MODE", "JWT_JWKS_URL", "JWT_HS256_SECRET", "JWT_ISSUER", "JWT_AUDIENCE", "JWT_TENANT_CLAIM", "JWT_USER_CLAIM", "JWT_IAT_LEEWAY",
		"DEV_TENANT_ID", "DEV_USER_ID", "CONCEPTS_QUEUE_URL", "ENRICHMENT_QUEUE_URL",
		"HISTORY_TURNS", "MAX_ACTIVE_NODES", "CONTEXT_TOKEN_BUDGET", "CONTEXT_REQUEST_TTL", "PII_REDACTION", "PROMPT_SHEETS_DIR", "PROMPT_CACHE_SECRET",
		"ENRICHMENT_FRESHNESS_DAYS", "CORS_ORIGINS", "RETENTION_DAYS", "DB_SECRET_ARN", "DB_APP_USER", "DEMO_PAGE",
		"AWS_SAM_LOCAL", "OFFLINE_WORD_DELAY", "JWT_HEADER", "DB_SSLROOTCERT", "DB_SWEEP_USER", "TENANT_DAILY_TOKEN_LIMIT", "TENANT_CAP_ON_ERROR", "TENANT_DAILY_COST_LIMIT_USD", "LLM_PRICES", "COMPAT_API",
		"GRAPH_NEW_NODES_PER_TENANT_DAY", "ENRICHMENT_JOBS_PER_TENANT_DAY",
		"TRACING", "OTEL_EXPORTER_OTLP_ENDPOINT", "TRACING_SAMPLE_RATIO", "RESUME_MAX_FOLLOWERS"} {
		t.Setenv(k, "")
	}
}

func mustLoad(t *testing.T) Config {
	t.Helper()
	c, err := FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLocalDefaults(t *testing.T) {
	clearEnv(t)
	c := mustLoad(t)
	want := Config{
		Port:      8080,
		DemoPage:  true,
		CompatAPI: true,
		Log:       Log{Format: "text", Level: "info"},
		Postgres:  Postgres{Port: 5432, SSLMode: "require", StatementCache: true},
		LLM:       LLM{Provider: "offline", Model: "offline-lexicon-v1", Tools: "auto", MaxCalls: 3, OfflineWordDelay: 20 * time.Millisecond},
		Auth: Auth{Mode: "dev", Header: "Authorization", TenantClaim: "tenant_id", UserClaim: "sub", IATLeeway: time.Minute,
			DevTenant: "dev-tenant", DevUser: "dev-user"},
		Chat: Chat{HistoryTurns: 5, MaxActiveNodes: 50, ContextRequestTTL: 15 * time.Minute, PIIRedaction: "both",
			Freshness: 30 * 24 * time.Hour, CapOnError: "closed", NewNodesPerTenantDay: 20, EnrichmentJobsPerTenantDay: 50, MaxStreamFollowers: 8},
		Retention: Retention{MaxIdle: 30 * 24 * time.Hour},
		Tracing:   Tracing{SampleRatio: 1},
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("defaults:\n got %+v\nwant %+v", c, want)
	}
	t.Setenv("OPENAI_API_KEY", "sk-test")
	if c = mustLoad(t); c.LLM.Provider != "openai" || c.LLM.Model != "gpt-4.1-mini" {
		t.Fatalf("with a key the provider should default to openai, got %s %s", c.LLM.Provider, c.LLM.Model)
	}
}

// Every variable lands in its section.
func TestEachVariableLandsInItsSection(t *testing.T) {
	clearEnv(t)
	for k, v := range map[string]string{
		"PORT": "9000", "LOG_FORMAT": "json", "LOG_LEVEL": "debug",
		"DATABASE_URL": "postgres://u@h/db", "DB_IAM_AUTH": "true", "DB_MAX_CONNS": "4", "DB_STATEMENT_CACHE": "false",
		"MEMGRAPH_URI": "bolt://g:7687", "MEMGRAPH_USER": "gu", "MEMGRAPH_PASSWORD": " p w ", "MEMGRAPH_SECRET_ARN": "arn:g",
		"GRAPH_DATABASE": "rules", "GRAPH_DIALECT": "neo4j",
		"LLM_PROVIDER": "openai-chat", "OPENAI_BASE_URL": "http://llm", "LLM_MODEL": "m", "OPENAI_SECRET_ARN": "arn:o",
		"LLM_TOOLS": "off", "LLM_MAX_CALLS": "10", "LLM_PRICES": "m=1.5/0.375/6, gpt-4.1=2/0.5/8",
		"AUTH_MODE": "jwt", "JWT_JWKS_URL": "https://id/jwks", "JWT_ISSUER": "iss", "JWT_AUDIENCE": "aud",
		"JWT_TENANT_CLAIM": "org", "JWT_USER_CLAIM": "uid", "JWT_HEADER": "X-User-Authorization", "AWS_SAM_LOCAL": "true",
		"JWT_IAT_LEEWAY":     "90s",
		"CONCEPTS_QUEUE_URL": "https://q/concepts", "ENRICHMENT_QUEUE_URL": "https://q/enrichment",
		"HISTORY_TURNS": "7", "MAX_ACTIVE_NODES": "20", "ENRICHMENT_FRESHNESS_DAYS": "2",
		"CORS_ORIGINS":   " https://a.example , ,https://b.example",
		"RETENTION_DAYS": "90", "DB_SECRET_ARN": "arn:db", "DB_APP_USER": "app", "DEMO_PAGE": "false", "DB_SWEEP_USER": "sweep",
		"TENANT_DAILY_TOKEN_LIMIT": "1000000", "TENANT_CAP_ON_ERROR": "open", "RESUME_MAX_FOLLOWERS": "3", "TENANT_DAILY_COST_LIMIT_USD": "12.50", "COMPAT_API": "false",
		"GRAPH_NEW_NODES_PER_TENANT_DAY": "5", "ENRICHMENT_JOBS_PER_TENANT_DAY": "7",
		"TRACING": "on", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "TRACING_SAMPLE_RATIO": "0.25",
	} {
		t.Setenv(k, v)
	}
	c := mustLoad(t)
	want := Config{
		Port:     9000,
		SAMLocal: true,
		Log:      Log{Format: "json", Level: "debug"},
		Postgres: Postgres{URL: "postgres://u@h/db", IAMAuth: true, MaxConns: 4, StatementCache: false},
		Graph:    Graph{URI: "bolt://g:7687", User: "gu", Password: " p w ", SecretARN: "arn:g", Database: "rules", Dialect: "neo4j"},
		LLM: LLM{Provider: "openai-chat", SecretARN: "arn:o", BaseURL: "http://llm", Model: "m", Tools: "off", MaxCalls: 10,
			Prices: map[string]ModelPrice{"m": {Input: 1.5, CachedInput: 0.375, Output: 6}, "gpt-4.1": {Input: 2, CachedInput: 0.5, Output: 8}}},
		Auth: Auth{Mode: "jwt", Header: "X-User-Authorization", JWKSURL: "https://id/jwks", Issuer: "iss", Audience: "aud", TenantClaim: "org", UserClaim: "uid",
			IATLeeway: 90 * time.Second, DevTenant: "dev-tenant", DevUser: "dev-user"},
		Queues: Queues{ConceptsURL: "https://q/concepts", EnrichmentURL: "https://q/enrichment"},
		Chat: Chat{HistoryTurns: 7, MaxActiveNodes: 20, ContextRequestTTL: 15 * time.Minute, PIIRedaction: "both",
			Freshness: 2 * 24 * time.Hour, CORSOrigins: []string{"https://a.example", "https://b.example"}, DailyTokenLimit: 1000000, DailyCostLimitUSD: 12.5, CapOnError: "open",
			NewNodesPerTenantDay: 5, EnrichmentJobsPerTenantDay: 7, MaxStreamFollowers: 3},
		Retention: Retention{MaxIdle: 90 * 24 * time.Hour},
		Migrate:   Migrate{DBSecretARN: "arn:db", AppUser: "app", SweepUser: "sweep"},
		Tracing:   Tracing{Enabled: true, Endpoint: "http://collector:4318", SampleRatio: 0.25},
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("sections:\n got %+v\nwant %+v", c, want)
	}
}

// The connection string is settled here, once: DATABASE_URL as given, or
// one built from the DB_* parts, which are then ignored.
func TestPostgresConnectionString(t *testing.T) {
	t.Run("parts", func(t *testing.T) {
		clearEnv(t)
		t.Setenv("DB_HOST", "db.example.internal")
		t.Setenv("DB_NAME", "regintel")
		t.Setenv("DB_USER", "app")
		t.Setenv("DB_IAM_AUTH", "true")
		t.Setenv("DB_MAX_CONNS", "3")
		p := mustLoad(t).Postgres
		want := "postgres://app@db.example.internal:5432/regintel?sslmode=require"
		if p.URL != want || !p.IAMAuth || p.MaxConns != 3 || p.Host != "db.example.internal" || p.Port != 5432 {
			t.Errorf("postgres = %+v, want URL %s, IAM auth, 3 conns", p, want)
		}
		t.Setenv("DB_PORT", "6543")
		t.Setenv("DB_SSLMODE", "verify-full")
		if p = mustLoad(t).Postgres; p.URL != "postgres://app@db.example.internal:6543/regintel?sslmode=verify-full" {
			t.Errorf("port and sslmode: %s", p.URL)
		}
	})
	t.Run("url wins", func(t *testing.T) {
		clearEnv(t)
		t.Setenv("DATABASE_URL", "postgres://u@h/db")
		t.Setenv("DB_HOST", "ignored")
		t.Setenv("DB_PORT", "not read")
		p := mustLoad(t).Postgres
		if p.URL != "postgres://u@h/db" || p.Host != "" || p.IAMAuth || p.MaxConns != 0 || !p.StatementCache {
			t.Errorf("postgres = %+v", p)
		}
	})
	t.Run("none", func(t *testing.T) {
		clearEnv(t)
		t.Setenv("DB_NAME", "regintel")
		if p := mustLoad(t).Postgres; p.URL != "" {
			t.Errorf("without DATABASE_URL or DB_HOST the URL should be empty, got %q", p.URL)
		}
	})
}

func TestLambdaRefusesDevAuthAndDefaultsToJSONAndJWT(t *testing.T) {
	clearEnv(t)
	t.Setenv("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001")
	t.Setenv("AUTH_MODE", "dev")
	c := mustLoad(t)
	if err := c.CheckAuth(); err == nil || !strings.Contains(err.Error(), "refused under Lambda") {
		t.Fatalf("dev auth under Lambda: err = %v", err)
	}
	t.Setenv("AUTH_MODE", "")
	if c = mustLoad(t); c.CheckAuth() == nil || !strings.Contains(c.CheckAuth().Error(), "JWT_JWKS_URL") {
		t.Fatalf("jwt without keys accepted")
	}
	t.Setenv("JWT_HS256_SECRET", "s")
	t.Setenv("JWT_ISSUER", "https://id.example/")
	t.Setenv("JWT_AUDIENCE", "regintel")
	if c = mustLoad(t); c.CheckAuth() == nil || !strings.Contains(c.CheckAuth().Error(), "at least 32 bytes") {
		t.Fatalf("a 1-byte HS256 secret: err = %v", c.CheckAuth())
	}
	t.Setenv("JWT_HS256_SECRET", strings.Repeat("s", 32))
	if c = mustLoad(t); c.CheckAuth() == nil || !strings.Contains(c.CheckAuth().Error(), "LLM_PROVIDER=offline") {
		t.Fatalf("the offline model under Lambda: err = %v", c.CheckAuth())
	}
	t.Setenv("OPENAI_API_KEY", "sk-test")
	c, err := FromEnv()
	if err != nil || c.CheckAuth() != nil || c.Auth.Mode != "jwt" || c.Log.Format != "json" {
		t.Fatalf("lambda config: %+v %v", c, err)
	}
}

// `sam local` sets AWS_SAM_LOCAL=true: there the development modes start,
// so a developer can invoke the chat function with no account.
func TestSAMLocalAllowsTheDevelopmentModes(t *testing.T) {
	clearEnv(t)
	t.Setenv("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001")
	t.Setenv("AWS_SAM_LOCAL", "true")
	t.Setenv("AUTH_MODE", "dev")
	if c := mustLoad(t); c.CheckAuth() != nil || c.LLM.Provider != "offline" {
		t.Fatalf("dev auth and the offline model under sam local: %v (%s)", c.CheckAuth(), c.LLM.Provider)
	}
}

func TestTokenHeaderAndCABundle(t *testing.T) {
	clearEnv(t)
	t.Setenv("JWT_HEADER", "X-User-Authorization")
	t.Setenv("DB_HOST", "db.internal")
	t.Setenv("DB_SSLMODE", "verify-full")
	t.Setenv("DB_SSLROOTCERT", "/var/task/rds-ca.pem")
	c := mustLoad(t)
	if c.Auth.Header != "X-User-Authorization" {
		t.Errorf("token header %q", c.Auth.Header)
	}
	if want := "postgres://db.internal:5432/?sslmode=verify-full&sslrootcert=%2Fvar%2Ftask%2Frds-ca.pem"; c.Postgres.URL != want {
		t.Errorf("URL %q, want %q", c.Postgres.URL, want)
	}
}

// Outside local runs the key set URL must be https; locally http is fine
// (a key server on the developer's machine).
func TestJWKSURLMustBeHTTPSOnLambda(t *testing.T) {
	clearEnv(t)
	t.Setenv("AUTH_MODE", "jwt")
	t.Setenv("JWT_JWKS_URL", "http://id.example/jwks")
	t.Setenv("JWT_ISSUER", "https://id.example/")
	t.Setenv("JWT_AUDIENCE", "regintel")
	if err := mustLoad(t).CheckAuth(); err != nil {
		t.Fatalf("local run with an http key set: %v", err)
	}
	t.Setenv("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001")
	t.Setenv("OPENAI_API_KEY", "sk-test") // the offline model is refused under Lambda too
	for _, bad := range []string{"http://id.example/jwks", "id.example/jwks", "ftp://id.example/jwks", "https://"} {
		t.Setenv("JWT_JWKS_URL", bad)
		if err := mustLoad(t).CheckAuth(); err == nil || !strings.Contains(err.Error(), "JWT_JWKS_URL") {
			t.Errorf("%s under Lambda: err = %v", bad, err)
		}
	}
	t.Setenv("JWT_JWKS_URL", "https://id.example/jwks")
	if err := mustLoad(t).CheckAuth(); err != nil {
		t.Fatalf("https key set under Lambda: %v", err)
	}
	// sam local is a local run: its key server may be the developer's.
	t.Setenv("AWS_SAM_LOCAL", "true")
	t.Setenv("JWT_JWKS_URL", "http://127.0.0.1:8081/jwks")
	if err := mustLoad(t).CheckAuth(); err != nil {
		t.Fatalf("http key set under sam local: %v", err)
	}
}

// Each bad value is refused with an error naming its variable.
func TestRejectsBadValues(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"PORT", "eighty"}, {"LLM_PROVIDER", "gemini"}, {"AUTH_MODE", "none"}, {"HISTORY_TURNS", "-1"}, {"TENANT_DAILY_TOKEN_LIMIT", "-5"}, {"TENANT_CAP_ON_ERROR", "fail"}, {"TENANT_DAILY_COST_LIMIT_USD", "-1"}, {"TENANT_DAILY_COST_LIMIT_USD", "ten"}, {"TENANT_DAILY_COST_LIMIT_USD", "Inf"},
		{"ENRICHMENT_FRESHNESS_DAYS", "0"}, {"ENRICHMENT_FRESHNESS_DAYS", "soon"},
		{"DB_IAM_AUTH", "maybe"}, {"DB_MAX_CONNS", "0"}, {"DB_MAX_CONNS", "two"}, {"DB_STATEMENT_CACHE", "maybe"},
		{"RETENTION_DAYS", "0"}, {"RETENTION_DAYS", "-3"}, {"RETENTION_DAYS", "week"}, {"RETENTION_DAYS", "1.5"},
		{"LLM_TOOLS", "on"}, {"LLM_TOOLS", "none"},
		{"LLM_PRICES", "m=1/2"}, {"LLM_PRICES", "m=1/x/2"}, {"LLM_PRICES", "=1/1/1"}, {"LLM_PRICES", "m=-1/0/0"}, {"LLM_MAX_CALLS", "0"}, {"LLM_MAX_CALLS", "11"}, {"LLM_MAX_CALLS", "three"}, {"LLM_MAX_CALLS", "-1"},
		{"JWT_IAT_LEEWAY", "soon"}, {"JWT_IAT_LEEWAY", "-1s"},
		{"TRACING", "yes"}, {"TRACING", "true"},
		{"TRACING_SAMPLE_RATIO", "1.5"}, {"TRACING_SAMPLE_RATIO", "-0.1"}, {"TRACING_SAMPLE_RATIO", "half"}, {"TRACING_SAMPLE_RATIO", "NaN"},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			clearEnv(t)
			t.Setenv(tc.name, tc.value)
			if _, err := FromEnv(); err == nil || !strings.Contains(err.Error(), tc.name) {
				t.Fatalf("%s=%s: err = %v", tc.name, tc.value, err)
			}
		})
	}
}

func TestLLMToolsAndMaxCalls(t *testing.T) {
	clearEnv(t)
	for _, tc := range []struct {
		tools, calls string
		wantTools    string
		wantCalls    int
	}{
		{"", "", "auto", 3},
		{"auto", "1", "auto", 1},
		{"off", "10", "off", 10},
	} {
		t.Setenv("LLM_TOOLS", tc.tools)
		t.Setenv("LLM_MAX_CALLS", tc.calls)
		if l := mustLoad(t).LLM; l.Tools != tc.wantTools || l.MaxCalls != tc.wantCalls {
			t.Errorf("LLM_TOOLS=%q LLM_MAX_CALLS=%q: got %q %d, want %q %d", tc.tools, tc.calls, l.Tools, l.MaxCalls, tc.wantTools, tc.wantCalls)
		}
	}
}

// The log settings survive a bad value, so the error can be logged as configured.
func TestLogSettingsSurviveAnError(t *testing.T) {
	clearEnv(t)
	t.Setenv("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001")
	t.Setenv("LOG_LEVEL", "warn")
	t.Setenv("PORT", "eighty")
	c, err := FromEnv()
	if err == nil || c.Log != (Log{Format: "json", Level: "warn"}) {
		t.Fatalf("log = %+v, err = %v", c.Log, err)
	}
}

// The demo page and the compatibility routes are on locally and off on
// Lambda, unless their variable says otherwise.
func TestLocalFeaturesAreOffOnLambdaUnlessSet(t *testing.T) {
	for name, on := range map[string]func(Config) bool{
		"DEMO_PAGE":  func(c Config) bool { return c.DemoPage },
		"COMPAT_API": func(c Config) bool { return c.CompatAPI },
	} {
		t.Run(name, func(t *testing.T) {
			clearEnv(t)
			if !on(mustLoad(t)) {
				t.Fatal("should be on locally")
			}
			t.Setenv(name, "false")
			if on(mustLoad(t)) {
				t.Fatal("=false should turn it off")
			}
			t.Setenv("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001")
			t.Setenv(name, "")
			if on(mustLoad(t)) {
				t.Fatal("should be off on Lambda by default")
			}
			t.Setenv(name, "true")
			if !on(mustLoad(t)) {
				t.Fatal("=true should turn it on on Lambda")
			}
			t.Setenv(name, "maybe")
			if _, err := FromEnv(); err == nil || !strings.Contains(err.Error(), name) {
				t.Fatalf("=maybe: err %v", err)
			}
		})
	}
}

// JWT mode refuses to start unless tokens must name both the issuer and
// the audience: keys alone would accept a token minted for another
// service. It holds locally as on Lambda.
func TestJWTModeNeedsIssuerAndAudience(t *testing.T) {
	for _, lambda := range []bool{false, true} {
		for name, env := range map[string]map[string]string{
			"neither":      {},
			"no audience":  {"JWT_ISSUER": "https://id.example/"},
			"no issuer":    {"JWT_AUDIENCE": "regintel"},
			"blank issuer": {"JWT_ISSUER": "  ", "JWT_AUDIENCE": "regintel"},
		} {
			clearEnv(t)
			if lambda {
				t.Setenv("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001")
				t.Setenv("OPENAI_API_KEY", "sk-test")
			}
			t.Setenv("AUTH_MODE", "jwt")
			t.Setenv("JWT_JWKS_URL", "https://id.example/jwks")
			for k, v := range env {
				t.Setenv(k, v)
			}
			err := mustLoad(t).CheckAuth()
			if err == nil || !strings.Contains(err.Error(), "JWT_ISSUER") || !strings.Contains(err.Error(), "JWT_AUDIENCE") {
				t.Errorf("lambda=%v, %s: err = %v, want a refusal naming JWT_ISSUER and JWT_AUDIENCE", lambda, name, err)
			}
		}
		t.Setenv("JWT_ISSUER", "https://id.example/")
		t.Setenv("JWT_AUDIENCE", "regintel")
		if err := mustLoad(t).CheckAuth(); err != nil {
			t.Errorf("lambda=%v with issuer and audience: %v", lambda, err)
		}
	}
}

// The offline model's pace: a small default, 0 for none, nonsense refused.
func TestOfflineWordDelay(t *testing.T) {
	clearEnv(t)
	for value, want := range map[string]time.Duration{"": 20 * time.Millisecond, "0": 0, "5ms": 5 * time.Millisecond} {
		t.Setenv("OFFLINE_WORD_DELAY", value)
		if got := mustLoad(t).LLM.OfflineWordDelay; got != want {
			t.Errorf("OFFLINE_WORD_DELAY=%q: %v, want %v", value, got, want)
		}
	}
	for _, bad := range []string{"fast", "-1ms", "2s"} {
		t.Setenv("OFFLINE_WORD_DELAY", bad)
		if _, err := FromEnv(); err == nil || !strings.Contains(err.Error(), "OFFLINE_WORD_DELAY") {
			t.Errorf("OFFLINE_WORD_DELAY=%q: %v", bad, err)
		}
	}
}

// The prompt cache secret, when set, is at least 32 bytes, and reaches
// the chat section.
func TestPromptCacheSecret(t *testing.T) {
	clearEnv(t)
	t.Setenv("PROMPT_CACHE_SECRET", "short")
	if _, err := FromEnv(); err == nil || !strings.Contains(err.Error(), "PROMPT_CACHE_SECRET") {
		t.Fatalf("a 5-byte secret: err = %v", err)
	}
	t.Setenv("PROMPT_CACHE_SECRET", strings.Repeat("p", 32))
	if c := mustLoad(t); c.Chat.PromptCacheSecret != strings.Repeat("p", 32) {
		t.Fatalf("secret = %q", c.Chat.PromptCacheSecret)
	}
}
