// Package config reads the backend's settings from the environment, once,
// into plain values. It is the only package that reads the process
// environment: the others take their settings as values. Every setting has
// a local default so `make dev` runs with none set.
//
// It imports the standard library only, so any binary can parse its
// settings without linking a driver.
package config

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"
)

// Config is the whole configuration of a process.
type Config struct {
	Port     int  // PORT (8080): the local server's port
	OnLambda bool // AWS_LAMBDA_RUNTIME_API is set
	// DemoPage (DEMO_PAGE) serves the demo page at GET /: on by default
	// locally, off on Lambda unless the stage turns it on.
	DemoPage bool
	// SAMLocal (AWS_SAM_LOCAL=true, set by `sam local`) allows the
	// development modes under the Lambda runtime: no real Lambda sets it.
	SAMLocal bool
	// CompatAPI (COMPAT_API) serves the reference web app's routes under
	// /api/: on by default locally, off on Lambda unless the stage turns
	// it on.
	CompatAPI bool

	Log       Log
	Postgres  Postgres
	Graph     Graph
	LLM       LLM
	Auth      Auth
	Queues    Queues
	Chat      Chat
	Retention Retention
	Migrate   Migrate
	Tracing   Tracing
}

// Log says how a process logs.
type Log struct {
	Format string // LOG_FORMAT: "json" (default on Lambda) or "text"
	Level  string // LOG_LEVEL (info): debug, info, warn or error
}

// Postgres says how to reach the database. Passwords are never read from
// plain environment variables: use IAM auth, or a URL assembled from a
// secret by the caller.
type Postgres struct {
	// URL is the connection string: DATABASE_URL, or else one built from
	// the DB_* parts below. Empty when neither DATABASE_URL nor DB_HOST is
	// set: no database (the chat function then uses its in-memory store).
	URL string
	// The parts, read only when DATABASE_URL is unset.
	Host    string // DB_HOST
	Port    int    // DB_PORT (5432)
	Name    string // DB_NAME
	User    string // DB_USER
	SSLMode string // DB_SSLMODE (require)
	// SSLRootCert (DB_SSLROOTCERT) is the CA bundle that verify-full checks
	// the server certificate against; empty: the system roots.
	SSLRootCert string
	// IAMAuth (DB_IAM_AUTH) signs in with IAM auth tokens instead of a password.
	IAMAuth bool
	// MaxConns (DB_MAX_CONNS) caps the pool; zero means the pool's default.
	MaxConns int32
	// StatementCache (DB_STATEMENT_CACHE, default true) prepares each
	// statement once per connection. Turn it off behind RDS Proxy, where a
	// prepared statement pins the client to one database connection.
	StatementCache bool
}

// Graph says how to reach the rules graph.
type Graph struct {
	URI       string // MEMGRAPH_URI; empty: the seeded in-memory graph
	User      string // MEMGRAPH_USER; empty: no authentication
	Password  string // MEMGRAPH_PASSWORD
	SecretARN string // MEMGRAPH_SECRET_ARN: user and password from a secret
	Database  string // GRAPH_DATABASE; empty: the server's default
	Dialect   string // GRAPH_DIALECT: memgraph, neo4j, or auto/empty (detected)
}

// LLM says which model answers and how.
type LLM struct {
	Provider  string // LLM_PROVIDER: openai, openai-chat or offline
	APIKey    string // OPENAI_API_KEY
	SecretARN string // OPENAI_SECRET_ARN: the key from a secret (field apiKey)
	BaseURL   string // OPENAI_BASE_URL
	Model     string // LLM_MODEL (gpt-4.1-mini; the offline model has one name)
	// Tools (LLM_TOOLS, default auto) is "auto" (offer the model its tools when the
	// provider supports them) or "off" (answer only).
	Tools string
	// MaxCalls (LLM_MAX_CALLS, 1 to 10, default 3) bounds the model calls
	// of one turn's tool loop.
	MaxCalls int
	// Prices (LLM_PRICES) add to or replace the built-in list prices by
	// model, to report each turn's cost.
	Prices map[string]ModelPrice
	// PromptCacheRetention (LLM_PROMPT_CACHE_RETENTION) is passed to the
	// provider as prompt_cache_retention: "in_memory", "24h", or unset for
	// the provider's default.
	PromptCacheRetention string
	// OfflineWordDelay (OFFLINE_WORD_DELAY, default 20ms) is waited before
	// each word the offline model streams, so streaming and Stop can be
	// seen under make dev; 0 streams at once.
	OfflineWordDelay time.Duration
}

// Auth says how callers are identified.
type Auth struct {
	Mode string // AUTH_MODE: jwt (default on Lambda) or dev
	// Header (JWT_HEADER, default Authorization) carries the bearer token.
	// Behind IAM auth SigV4 owns Authorization, so the token moves to
	// another header.
	Header      string
	JWKSURL     string // JWT_JWKS_URL
	HS256Secret string // JWT_HS256_SECRET
	Issuer      string // JWT_ISSUER
	Audience    string // JWT_AUDIENCE
	TenantClaim string // JWT_TENANT_CLAIM (tenant_id)
	UserClaim   string // JWT_USER_CLAIM (sub)
	// IATLeeway (JWT_IAT_LEEWAY, default 60s) is how far in the future a
	// token's issued-at time may be (clock skew), and no further.
	IATLeeway time.Duration
	DevTenant string // DEV_TENANT_ID (dev-tenant): dev mode's tenant when no header names one
	DevUser   string // DEV_USER_ID (dev-user)
}

// Tracing says whether spans are exported, and where.
type Tracing struct {
	// Enabled (TRACING, on or off; default off) exports OpenTelemetry spans.
	Enabled bool
	// Endpoint (OTEL_EXPORTER_OTLP_ENDPOINT) is the OTLP/HTTP receiver's base
	// URL; empty: the collector layer's local one.
	Endpoint string
	// SampleRatio (TRACING_SAMPLE_RATIO, 0 to 1; default 1) is the share of
	// new traces recorded. A trace Lambda or a caller has already decided
	// keeps that decision.
	SampleRatio float64
}

// Queues are the SQS queue URLs; empty means in-process.
type Queues struct {
	ConceptsURL   string // CONCEPTS_QUEUE_URL
	EnrichmentURL string // ENRICHMENT_QUEUE_URL
}

// Chat tunes the chat turn and the graph around it.
type Chat struct {
	HistoryTurns   int // HISTORY_TURNS (5)
	MaxActiveNodes int // MAX_ACTIVE_NODES (50)
	// TokenBudget (CONTEXT_TOKEN_BUDGET) is shared by the system prompt,
	// supplied context and history; zero: the engine's default for the model.
	TokenBudget       int
	ContextRequestTTL time.Duration // CONTEXT_REQUEST_TTL (15m): how long a context request waits
	PIIRedaction      string        // PII_REDACTION: off, store, llm or both (default)
	PromptSheetsDir   string        // PROMPT_SHEETS_DIR; empty: the embedded sheet
	// PromptCacheSecret (PROMPT_CACHE_SECRET) keys the prompt_cache_key
	// HMAC; empty: a random key per process.
	PromptCacheSecret string
	// Freshness (ENRICHMENT_FRESHNESS_DAYS, default 30) is how long enriched graph
	// detail counts as current.
	Freshness   time.Duration
	CORSOrigins []string // CORS_ORIGINS, comma-separated
	// NewNodesPerTenantDay (GRAPH_NEW_NODES_PER_TENANT_DAY, 20) bounds the
	// new shared graph nodes one tenant's captures make per UTC day, and
	// EnrichmentJobsPerTenantDay (ENRICHMENT_JOBS_PER_TENANT_DAY, 50) the
	// enrichment jobs they queue; beyond them the resolver writes and
	// queues nothing more for that tenant that day.
	NewNodesPerTenantDay       int
	EnrichmentJobsPerTenantDay int
	// DailyTokenLimit (TENANT_DAILY_TOKEN_LIMIT) caps the model tokens a
	// tenant's turns may use per UTC day; zero (unset) is no cap.
	DailyTokenLimit int
	// DailyCostLimitUSD (TENANT_DAILY_COST_LIMIT_USD) caps a tenant's model
	// cost per UTC day at the model's prices; zero (unset) is no cap.
	DailyCostLimitUSD float64
	// CapOnError (TENANT_CAP_ON_ERROR: closed, the default, or open) says
	// whether a turn whose charge to the cap fails is refused or runs.
	CapOnError string
	// MaxStreamFollowers (RESUME_MAX_FOLLOWERS, default 8) is how many
	// clients may follow one conversation's stream at once.
	MaxStreamFollowers int
}

// Retention is the sweep's policy.
type Retention struct {
	// MaxIdle (RETENTION_DAYS, default 30) is how long a conversation may be idle
	// before its context and supplied items are deleted.
	MaxIdle time.Duration
}

// Migrate is what the migrate function needs beyond Postgres.
type Migrate struct {
	DBSecretARN string // DB_SECRET_ARN: the master user's secret
	AppUser     string // DB_APP_USER: the runtime role to create and grant
	SweepUser   string // DB_SWEEP_USER: the retention sweep's role to create and grant
	// Step (MIGRATE_STEP) is "" for the Postgres migrations, or "graph" for
	// the deploy's graph step (schema and the knowledge dataset).
	Step string
}

// FromEnv reads the configuration and checks it is coherent. On error the
// returned Config still carries the log settings, so the error can be
// logged as configured.
func FromEnv() (Config, error) {
	r := &reader{}
	c := Config{OnLambda: r.str("AWS_LAMBDA_RUNTIME_API", "") != "", SAMLocal: r.bool("AWS_SAM_LOCAL", false)}
	c.Log = Log{Format: r.str("LOG_FORMAT", "text"), Level: r.str("LOG_LEVEL", "info")}
	if c.OnLambda {
		c.Log.Format = r.str("LOG_FORMAT", "json")
	}
	c.Port = r.int("PORT", 8080, 0, 65535)
	c.DemoPage = r.bool("DEMO_PAGE", !c.OnLambda)
	c.CompatAPI = r.bool("COMPAT_API", !c.OnLambda)
	c.Postgres = readPostgres(r)
	c.Graph = Graph{
		URI: r.str("MEMGRAPH_URI", ""), User: r.str("MEMGRAPH_USER", ""), Password: r.raw("MEMGRAPH_PASSWORD"),
		SecretARN: r.str("MEMGRAPH_SECRET_ARN", ""), Database: r.str("GRAPH_DATABASE", ""), Dialect: r.str("GRAPH_DIALECT", ""),
	}
	c.LLM = readLLM(r)
	c.Auth = readAuth(r, c.OnLambda)
	c.Queues = Queues{ConceptsURL: r.str("CONCEPTS_QUEUE_URL", ""), EnrichmentURL: r.str("ENRICHMENT_QUEUE_URL", "")}
	c.Chat = readChat(r)
	c.Retention = Retention{MaxIdle: r.days("RETENTION_DAYS", 30)}
	c.Tracing = Tracing{Enabled: r.oneOf("TRACING", "off", "on", "off") == "on", Endpoint: r.str("OTEL_EXPORTER_OTLP_ENDPOINT", ""),
		SampleRatio: r.ratio("TRACING_SAMPLE_RATIO", 1)}
	c.Migrate = Migrate{DBSecretARN: r.str("DB_SECRET_ARN", ""), AppUser: r.str("DB_APP_USER", ""), SweepUser: r.str("DB_SWEEP_USER", ""),
		Step: r.oneOf("MIGRATE_STEP", "", "", "graph")}
	return c, r.err
}

func readPostgres(r *reader) Postgres {
	p := Postgres{
		URL:            r.str("DATABASE_URL", ""),
		IAMAuth:        r.bool("DB_IAM_AUTH", false),
		MaxConns:       int32(r.int("DB_MAX_CONNS", 0, 1, 1<<31-1)),
		StatementCache: r.bool("DB_STATEMENT_CACHE", true),
	}
	if p.URL != "" {
		return p
	}
	p.Host, p.Port, p.Name = r.str("DB_HOST", ""), r.int("DB_PORT", 5432, 1, 65535), r.str("DB_NAME", "")
	p.User, p.SSLMode = r.str("DB_USER", ""), r.str("DB_SSLMODE", "require")
	p.SSLRootCert = r.str("DB_SSLROOTCERT", "")
	if p.Host == "" {
		return p
	}
	u := url.URL{Scheme: "postgres", Host: net.JoinHostPort(p.Host, strconv.Itoa(p.Port)), Path: "/" + p.Name}
	if p.User != "" {
		u.User = url.User(p.User)
	}
	q := url.Values{"sslmode": {p.SSLMode}}
	if p.SSLRootCert != "" {
		q.Set("sslrootcert", p.SSLRootCert)
	}
	u.RawQuery = q.Encode()
	p.URL = u.String()
	return p
}

// DefaultOfflineWordDelay paces the offline model like a fast real one.
const DefaultOfflineWordDelay = 20 * time.Millisecond

// readWordDelay reads OFFLINE_WORD_DELAY: a duration, 0 for none.
func readWordDelay(r *reader) time.Duration {
	v := r.str("OFFLINE_WORD_DELAY", "")
	if v == "" {
		return DefaultOfflineWordDelay
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d > time.Second {
		r.fail(fmt.Errorf("OFFLINE_WORD_DELAY=%q: use a duration from 0 to 1s, such as 20ms", v))
		return DefaultOfflineWordDelay
	}
	return d
}

func readLLM(r *reader) LLM {
	l := LLM{
		Provider: r.str("LLM_PROVIDER", ""), APIKey: r.raw("OPENAI_API_KEY"), SecretARN: r.str("OPENAI_SECRET_ARN", ""),
		BaseURL: r.str("OPENAI_BASE_URL", ""), Tools: r.oneOf("LLM_TOOLS", "auto", "auto", "off"),
		MaxCalls: r.int("LLM_MAX_CALLS", 3, 1, 10), Prices: r.prices("LLM_PRICES"),
		PromptCacheRetention: r.oneOf("LLM_PROMPT_CACHE_RETENTION", "", "", "in_memory", "24h"),
	}
	if l.Provider == "" {
		l.Provider = "offline"
		if l.APIKey != "" || l.SecretARN != "" {
			l.Provider = "openai"
		}
	}
	switch l.Provider {
	case "openai", "openai-chat":
		if l.Provider == "openai" && l.APIKey == "" && l.SecretARN == "" && l.BaseURL == "" {
			r.fail(fmt.Errorf("LLM_PROVIDER=openai needs OPENAI_API_KEY (or OPENAI_SECRET_ARN)"))
		}
		l.Model = r.str("LLM_MODEL", "gpt-4.1-mini")
	case "offline":
		l.Model = "offline-lexicon-v1" // the offline model has one name
		l.OfflineWordDelay = readWordDelay(r)
	default:
		r.fail(fmt.Errorf("LLM_PROVIDER=%q: use openai, openai-chat or offline", l.Provider))
	}
	return l
}

func readAuth(r *reader, onLambda bool) Auth {
	defaultMode := "dev"
	if onLambda {
		defaultMode = "jwt"
	}
	return Auth{
		Mode: r.oneOf("AUTH_MODE", defaultMode, "jwt", "dev"), Header: r.str("JWT_HEADER", "Authorization"),
		JWKSURL: r.str("JWT_JWKS_URL", ""), HS256Secret: r.raw("JWT_HS256_SECRET"),
		Issuer: r.str("JWT_ISSUER", ""), Audience: r.str("JWT_AUDIENCE", ""),
		TenantClaim: r.str("JWT_TENANT_CLAIM", "tenant_id"), UserClaim: r.str("JWT_USER_CLAIM", "sub"),
		IATLeeway: r.duration("JWT_IAT_LEEWAY", 60*time.Second),
		DevTenant: r.str("DEV_TENANT_ID", "dev-tenant"), DevUser: r.str("DEV_USER_ID", "dev-user"),
	}
}

func readChat(r *reader) Chat {
	c := Chat{
		HistoryTurns:               r.int("HISTORY_TURNS", 5, 0, maxInt),
		MaxActiveNodes:             r.int("MAX_ACTIVE_NODES", 50, 0, maxInt),
		TokenBudget:                r.int("CONTEXT_TOKEN_BUDGET", 0, 0, maxInt),
		ContextRequestTTL:          r.duration("CONTEXT_REQUEST_TTL", 15*time.Minute),
		PIIRedaction:               r.oneOf("PII_REDACTION", "both", "off", "store", "llm", "both"),
		PromptSheetsDir:            r.str("PROMPT_SHEETS_DIR", ""),
		PromptCacheSecret:          r.raw("PROMPT_CACHE_SECRET"),
		Freshness:                  r.days("ENRICHMENT_FRESHNESS_DAYS", 30),
		CORSOrigins:                r.list("CORS_ORIGINS"),
		NewNodesPerTenantDay:       r.int("GRAPH_NEW_NODES_PER_TENANT_DAY", 20, 0, maxInt),
		EnrichmentJobsPerTenantDay: r.int("ENRICHMENT_JOBS_PER_TENANT_DAY", 50, 0, maxInt),
		DailyTokenLimit:            r.int("TENANT_DAILY_TOKEN_LIMIT", 0, 0, maxInt),
		DailyCostLimitUSD:          r.dollars("TENANT_DAILY_COST_LIMIT_USD"),
		CapOnError:                 r.oneOf("TENANT_CAP_ON_ERROR", "closed", "closed", "open"),
		MaxStreamFollowers:         r.int("RESUME_MAX_FOLLOWERS", 8, 1, 1000),
	}
	if c.PromptCacheSecret != "" && len(c.PromptCacheSecret) < 32 {
		r.fail(fmt.Errorf("PROMPT_CACHE_SECRET must be at least 32 bytes (or leave it unset)"))
	}
	if c.TokenBudget != 0 && c.TokenBudget < 1000 {
		r.fail(fmt.Errorf("CONTEXT_TOKEN_BUDGET=%d: use at least 1000 tokens (or leave it unset)", c.TokenBudget))
	}
	return c
}

// CheckAuth is called by the functions that serve HTTP: the development
// modes (dev auth, the offline model) are refused under Lambda, except
// under `sam local`, and JWT mode needs a way to verify tokens and the
// issuer and audience a token must name. Outside
// local runs the key set is fetched over https only (a key set fetched in
// clear could be swapped for the attacker's). The queue and scheduled
// functions authenticate no one and skip it.
func (c Config) CheckAuth() error {
	realLambda := c.OnLambda && !c.SAMLocal
	switch {
	case c.Auth.Mode == "dev" && realLambda:
		return fmt.Errorf("AUTH_MODE=dev trusts identity headers and is refused under Lambda: use AUTH_MODE=jwt")
	case c.Auth.Mode == "jwt" && c.Auth.JWKSURL == "" && c.Auth.HS256Secret == "":
		return fmt.Errorf("AUTH_MODE=jwt needs JWT_JWKS_URL or JWT_HS256_SECRET")
	case c.Auth.Mode == "jwt" && c.Auth.HS256Secret != "" && len(c.Auth.HS256Secret) < minHS256SecretBytes:
		return fmt.Errorf("JWT_HS256_SECRET must be at least %d bytes (RFC 7518 section 3.2: as long as the hash output)", minHS256SecretBytes)
	case c.Auth.Mode == "jwt" && (c.Auth.Issuer == "" || c.Auth.Audience == ""):
		// Without them a token the same keys signed for another service,
		// or by another issuer sharing them, would be accepted here.
		return fmt.Errorf("AUTH_MODE=jwt needs JWT_ISSUER and JWT_AUDIENCE: tokens are accepted only from that issuer, for that audience")
	case c.LLM.Provider == "offline" && realLambda:
		return fmt.Errorf("LLM_PROVIDER=offline answers canned text and is refused under Lambda: use openai or openai-chat")
	case c.Auth.Mode == "jwt" && c.Auth.JWKSURL != "" && realLambda && !isHTTPS(c.Auth.JWKSURL):
		return fmt.Errorf("JWT_JWKS_URL=%q: use an https URL (plain http is accepted for local runs only)", c.Auth.JWKSURL)
	}
	return nil
}

func isHTTPS(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Scheme == "https" && u.Host != ""
}

// minHS256SecretBytes is auth.MinHS256SecretBytes (config does not import
// auth): RFC 7518 section 3.2, a key as long as the hash output.
const minHS256SecretBytes = 32
