// Package config reads the backend's settings from the environment. Every
// setting has a local default so `make dev` runs with none set.
package config

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config is the whole configuration of a process.
type Config struct {
	Port        int
	OnLambda    bool   // AWS_LAMBDA_RUNTIME_API is set
	LogFormat   string // "json" or "text"
	LogLevel    string
	DatabaseURL string // empty: embedded in-memory store (unless DB_HOST is set)
	DBHost      string // with DB_IAM_AUTH on Lambda
	// LLM
	LLMProvider     string // openai | openai-chat | offline
	OpenAIAPIKey    string
	OpenAISecretARN string
	OpenAIBaseURL   string
	LLMModel        string
	// Graph
	MemgraphURI string // empty: in-memory seeded graph
	// Auth
	AuthMode       string // jwt | dev
	JWTJWKSURL     string
	JWTHS256Secret string
	JWTIssuer      string
	JWTAudience    string
	JWTTenantClaim string
	JWTUserClaim   string
	DevTenant      string
	DevUser        string
	// Queues: empty means in-process.
	ConceptsQueueURL   string
	EnrichmentQueueURL string
	// Chat
	HistoryTurns   int
	MaxActiveNodes int
	CORSOrigins    []string
	Freshness      time.Duration
	// Context (issue 6): token budget (0: the engine's default for the
	// model), how long a context request waits, PII redaction mode, and a
	// directory replacing the embedded prompt sheet ("" keeps it).
	ContextTokenBudget int
	ContextRequestTTL  time.Duration
	PIIRedaction       string
	PromptSheetsDir    string
}

// FromEnv reads the configuration and checks it is coherent.
func FromEnv() (Config, error) {
	c := Config{
		OnLambda:           os.Getenv("AWS_LAMBDA_RUNTIME_API") != "",
		LogLevel:           env("LOG_LEVEL", "info"),
		DatabaseURL:        os.Getenv("DATABASE_URL"),
		DBHost:             os.Getenv("DB_HOST"),
		OpenAIAPIKey:       os.Getenv("OPENAI_API_KEY"),
		OpenAISecretARN:    os.Getenv("OPENAI_SECRET_ARN"),
		OpenAIBaseURL:      os.Getenv("OPENAI_BASE_URL"),
		MemgraphURI:        os.Getenv("MEMGRAPH_URI"),
		JWTJWKSURL:         os.Getenv("JWT_JWKS_URL"),
		JWTHS256Secret:     os.Getenv("JWT_HS256_SECRET"),
		JWTIssuer:          os.Getenv("JWT_ISSUER"),
		JWTAudience:        os.Getenv("JWT_AUDIENCE"),
		JWTTenantClaim:     env("JWT_TENANT_CLAIM", "tenant_id"),
		JWTUserClaim:       env("JWT_USER_CLAIM", "sub"),
		DevTenant:          env("DEV_TENANT_ID", "dev-tenant"),
		DevUser:            env("DEV_USER_ID", "dev-user"),
		ConceptsQueueURL:   os.Getenv("CONCEPTS_QUEUE_URL"),
		EnrichmentQueueURL: os.Getenv("ENRICHMENT_QUEUE_URL"),
	}
	var err error
	if c.Port, err = intEnv("PORT", 8080); err != nil {
		return c, err
	}
	if c.HistoryTurns, err = intEnv("HISTORY_TURNS", 5); err != nil {
		return c, err
	}
	if c.MaxActiveNodes, err = intEnv("MAX_ACTIVE_NODES", 50); err != nil {
		return c, err
	}
	days, err := intEnv("ENRICHMENT_FRESHNESS_DAYS", 30)
	if err != nil {
		return c, err
	}
	c.Freshness = time.Duration(days) * 24 * time.Hour
	if c.ContextTokenBudget, err = intEnv("CONTEXT_TOKEN_BUDGET", 0); err != nil {
		return c, err
	}
	if c.ContextTokenBudget != 0 && c.ContextTokenBudget < 1000 {
		return c, fmt.Errorf("CONTEXT_TOKEN_BUDGET=%d: use at least 1000 tokens (or leave it unset)", c.ContextTokenBudget)
	}
	c.ContextRequestTTL = 15 * time.Minute
	if v := strings.TrimSpace(os.Getenv("CONTEXT_REQUEST_TTL")); v != "" {
		ttl, err := time.ParseDuration(v)
		if err != nil || ttl <= 0 {
			return c, fmt.Errorf("CONTEXT_REQUEST_TTL=%q: use a positive duration such as 15m", v)
		}
		c.ContextRequestTTL = ttl
	}
	c.PIIRedaction = env("PII_REDACTION", "both")
	switch c.PIIRedaction {
	case "off", "store", "llm", "both":
	default:
		return c, fmt.Errorf("PII_REDACTION=%q: use off, store, llm or both", c.PIIRedaction)
	}
	c.PromptSheetsDir = os.Getenv("PROMPT_SHEETS_DIR")
	if o := os.Getenv("CORS_ORIGINS"); o != "" {
		for _, s := range strings.Split(o, ",") {
			if s = strings.TrimSpace(s); s != "" {
				c.CORSOrigins = append(c.CORSOrigins, s)
			}
		}
	}

	c.LogFormat = env("LOG_FORMAT", "text")
	if c.OnLambda {
		c.LogFormat = env("LOG_FORMAT", "json")
	}

	c.LLMProvider = os.Getenv("LLM_PROVIDER")
	if c.LLMProvider == "" {
		c.LLMProvider = "offline"
		if c.OpenAIAPIKey != "" || c.OpenAISecretARN != "" {
			c.LLMProvider = "openai"
		}
	}
	switch c.LLMProvider {
	case "openai", "openai-chat":
		if c.OpenAIAPIKey == "" && c.OpenAISecretARN == "" && c.LLMProvider == "openai" && c.OpenAIBaseURL == "" {
			return c, fmt.Errorf("LLM_PROVIDER=openai needs OPENAI_API_KEY (or OPENAI_SECRET_ARN)")
		}
		c.LLMModel = env("LLM_MODEL", "gpt-4.1-mini")
	case "offline":
		c.LLMModel = "offline-lexicon-v1" // the offline model has one name
	default:
		return c, fmt.Errorf("LLM_PROVIDER=%q: use openai, openai-chat or offline", c.LLMProvider)
	}

	c.AuthMode = os.Getenv("AUTH_MODE")
	if c.AuthMode == "" {
		c.AuthMode = "dev"
		if c.OnLambda {
			c.AuthMode = "jwt"
		}
	}
	if c.AuthMode != "dev" && c.AuthMode != "jwt" {
		return c, fmt.Errorf("AUTH_MODE=%q: use jwt or dev", c.AuthMode)
	}
	if days == 0 {
		return c, fmt.Errorf("ENRICHMENT_FRESHNESS_DAYS must be a positive number of days")
	}
	return c, nil
}

// CheckAuth is called by the functions that serve HTTP: dev mode is refused
// under Lambda, and JWT mode needs a way to verify tokens. The queue and
// scheduled functions authenticate no one and skip it.
func (c Config) CheckAuth() error {
	switch {
	case c.AuthMode == "dev" && c.OnLambda:
		return fmt.Errorf("AUTH_MODE=dev trusts identity headers and is refused under Lambda: use AUTH_MODE=jwt")
	case c.AuthMode == "jwt" && c.JWTJWKSURL == "" && c.JWTHS256Secret == "":
		return fmt.Errorf("AUTH_MODE=jwt needs JWT_JWKS_URL or JWT_HS256_SECRET")
	}
	return nil
}

func env(name, fallback string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return fallback
}

func intEnv(name string, fallback int) (int, error) {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return fallback, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q is not a non-negative integer", name, v)
	}
	return n, nil
}
