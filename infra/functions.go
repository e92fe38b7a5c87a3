package main

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// dbAccess is how a function reaches Postgres.
type dbAccess int

const (
	dbNone  dbAccess = iota
	dbApp            // IAM token as cfg.DBAppUser, through the proxy when there is one
	dbSweep          // IAM token as cfg.DBSweepUser (every tenant's expired rows), through the proxy when there is one
	dbAdmin          // master secret, straight to the cluster (migrate creates the IAM role)
)

// consumer makes a function the SQS consumer of one queue.
type consumer struct {
	Queue          string        // key in queueSpecs
	BatchSize      int           // messages per invocation
	BatchingWindow time.Duration // wait to fill a batch
	MaxConcurrency int           // concurrent invocations (>= 2); protects the database and the LLM quota
}

// functionSpec is one Lambda function. Adding a function is one entry in
// functionSpecs: its bootstrap comes from build/<Name>/bootstrap (`make build`
// builds every functions/<Name>).
type functionSpec struct {
	Name        string
	Bootstrap   string // the functions/<Bootstrap> binary it runs; empty: its own (Name)
	Description string
	Timeout     time.Duration
	MemoryMB    int
	DB          dbAccess
	Graph       bool     // MEMGRAPH_URI + MEMGRAPH_SECRET_ARN, Bolt egress (when the stack has a graph)
	GraphOnly   bool     // deployed only with a graph: it works on the graph and nothing else
	LLM         bool     // OPENAI_SECRET_ARN, LLM_PROVIDER, LLM_MODEL
	Sends       []string // queue keys it may send to, when deployed (URL in env, sqs:SendMessage)
	Consumes    *consumer
	URL         bool // Function URL, streamed responses
	Scheduled   bool // invoked on cfg.SweepSchedule
	Migrations  bool // run by the migrate step (Custom::MigrateStep) once the database is ready; failure fails the deploy, a rollback does not re-run it
	GraphSetup  bool // the graph step: outside the deploy, run by `make graph-setup` once Memgraph is reachable (output GraphSetupFunctionName)
	Spans       bool // emits OpenTelemetry spans: traced (X-Ray Active, collector layer) when the stack's tracing is on
	Env         func(Config) map[string]string
}

// queueSpec is one work queue; each gets a dead-letter queue and alarms.
type queueSpec struct {
	Key       string
	GraphOnly bool          // its work ends in the graph: only with a graph
	EnvVar    string        // env name of its URL in senders and the consumer
	MaxAge    time.Duration // alarm when the oldest message is older
	OutputKey string
}

var queueSpecs = []queueSpec{
	{Key: "concepts", GraphOnly: true, EnvVar: "CONCEPTS_QUEUE_URL", MaxAge: 15 * time.Minute, OutputKey: "ConceptsQueueUrl"},
	{Key: "enrichment", GraphOnly: true, EnvVar: "ENRICHMENT_QUEUE_URL", MaxAge: 2 * time.Hour, OutputKey: "EnrichmentQueueUrl"},
}

var functionSpecs = []functionSpec{
	{
		Name:        "chat",
		Spans:       true,
		Description: "Chat turns over a streaming Function URL",
		Timeout:     3 * time.Minute,
		MemoryMB:    1024,
		DB:          dbApp,
		Graph:       true,
		LLM:         true,
		Sends:       []string{"concepts"},
		URL:         true,
		Env: func(c Config) map[string]string {
			return map[string]string{
				"AUTH_MODE":        "jwt",
				"JWT_HEADER":       c.JwtHeader(),
				"JWT_JWKS_URL":     c.JwtJwksURL,
				"JWT_ISSUER":       c.JwtIssuer,
				"JWT_AUDIENCE":     c.JwtAudience,
				"JWT_TENANT_CLAIM": c.JwtTenantClaim,
			}
		},
	},
	{
		Name:        "resolve-concepts",
		Spans:       true,
		Description: "Resolves captured concepts into the graph and queues enrichment",
		Timeout:     time.Minute,
		MemoryMB:    512,
		DB:          dbApp, // the per-tenant daily graph quota (tenant_graph_quota)
		Graph:       true,
		GraphOnly:   true,
		Sends:       []string{"enrichment"},
		Consumes:    &consumer{Queue: "concepts", BatchSize: 10, BatchingWindow: 5 * time.Second, MaxConcurrency: 5},
	},
	{
		Name:        "enrich",
		Spans:       true,
		Description: "Fetches official sources and writes extracted rules to the graph",
		Timeout:     5 * time.Minute,
		MemoryMB:    1024,
		Graph:       true,
		GraphOnly:   true,
		LLM:         true,
		Consumes:    &consumer{Queue: "enrichment", BatchSize: 1, MaxConcurrency: 2},
	},
	{
		Name:        "migrate",
		Description: "Applies the Postgres migrations and creates the database roles at deploy time",
		Timeout:     5 * time.Minute,
		MemoryMB:    512,
		DB:          dbAdmin,
		Migrations:  true,
	},
	{
		Name:        "graph-setup",
		Bootstrap:   "migrate",
		Description: "Applies the graph schema and loads the shipped dataset (make graph-setup)",
		Timeout:     10 * time.Minute,
		MemoryMB:    512,
		Graph:       true,
		GraphOnly:   true,
		GraphSetup:  true,
		Env: func(c Config) map[string]string {
			// The schema and dataset this version of the function writes:
			// a deploy that changes them shows in the diff, and the guide
			// runs make graph-setup after it.
			return map[string]string{"MIGRATE_STEP": "graph", "GRAPH_SETUP_HASH": c.GraphSetupHash}
		},
	},
	{
		Name:        "sweep",
		Description: "Retention: removes conversation context idle past the retention period",
		Timeout:     5 * time.Minute,
		MemoryMB:    256,
		DB:          dbSweep,
		Scheduled:   true,
		Env: func(c Config) map[string]string {
			return map[string]string{"RETENTION_DAYS": strconv.Itoa(c.ContextRetentionDays)}
		},
	},
}

// binary is the functions/<name> directory f's bootstrap is built from.
func (f functionSpec) binary() string {
	if f.Bootstrap != "" {
		return f.Bootstrap
	}
	return f.Name
}

// binaries are the distinct bootstraps of specs, in table order.
func binaries(specs []functionSpec) []string {
	var out []string
	for _, f := range specs {
		if !slices.Contains(out, f.binary()) {
			out = append(out, f.binary())
		}
	}
	return out
}

// deployedFunctions are the functions of specs the stack of cfg has.
func deployedFunctions(cfg Config, specs []functionSpec) []functionSpec {
	var out []functionSpec
	for _, f := range specs {
		if !f.GraphOnly || cfg.GraphOn() {
			out = append(out, f)
		}
	}
	return out
}

// deployedQueues are the queues the stack of cfg has.
func deployedQueues(cfg Config) []queueSpec {
	var out []queueSpec
	for _, q := range queueSpecs {
		if !q.GraphOnly || cfg.GraphOn() {
			out = append(out, q)
		}
	}
	return out
}

// consumerOf returns the function consuming queue key, if any.
func consumerOf(specs []functionSpec, key string) (functionSpec, bool) {
	for _, f := range specs {
		if f.Consumes != nil && f.Consumes.Queue == key {
			return f, true
		}
	}
	return functionSpec{}, false
}

// visibilityTimeout follows the Lambda guidance for SQS event sources: at
// least six times the consumer's timeout, plus its batching window.
func visibilityTimeout(f functionSpec) time.Duration {
	return 6*f.Timeout + f.Consumes.BatchingWindow
}

// queueID is the stem of a queue's logical ids ("concepts" -> "Concepts",
// giving ConceptsQueue and ConceptsDLQ).
func queueID(key string) string {
	return strings.TrimSuffix(logicalID(key), "Function")
}

// logicalID is the stable CloudFormation id of a function ("resolve-concepts"
// -> "ResolveConceptsFunction"), the name `sam local invoke` takes.
func logicalID(name string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String() + "Function"
}

// sortedKeys returns the keys of m in order, for stable templates.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
