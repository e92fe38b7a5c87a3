// Package chat runs one chat turn: load history and context, ground the
// question in the rules graph, fit the prompt into the token budget, stream
// the model's answer through a bounded tool loop (capture_concepts,
// request_context), resolve and queue the captured concepts, store the turn
// and merge the context. Everything but the model's answer itself is
// additive: its failures become warnings, never a failed turn.
package chat

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"regintel/shared/conversation"
	"regintel/shared/graph"
	"regintel/shared/graph/write"
	"regintel/shared/llm"
	"regintel/shared/llm/pricing"
	"regintel/shared/prompt"
	"regintel/shared/queue"
)

// Limits on a chat request, checked before anything is stored.
const (
	MaxMessageChars = 32000
	MaxHistoryItems = 50
)

// Config tunes the engine. Zero values take the defaults.
type Config struct {
	// PromptCacheSecret keys the prompt_cache_key HMAC (see
	// promptCacheKey); empty: a random key for this engine.
	PromptCacheSecret []byte
	HistoryTurns      int           // turns of history sent to the model (default 5)
	MaxActiveNodes    int           // cap of activeNodeIds (default 50)
	StoreTimeout      time.Duration // bound on each storage call (default 5s)
	GraphTimeout      time.Duration // bound on the context aspect's graph read (default 3s)
	Model             string        // model name passed to the provider
	AgentID           string        // default agent (default "regulatory-copilot.global")
	// TokenBudget bounds the system prompt, supplied context, history and
	// question together, in the model's tokens (default 12000).
	TokenBudget int
	// ContextRequestTTL is how long a context request waits (default 15m).
	ContextRequestTTL time.Duration
	// PIIRedaction is off, store, llm or both (default both).
	PIIRedaction string
	// Tools is ToolsAuto (default) or ToolsOff.
	Tools string
	// MaxModelCalls bounds the model calls of one turn's tool loop (default 3).
	MaxModelCalls int
	// TurnLease is how long a turn holds its conversation against a second
	// one (default conversation.DefaultTurnLease).
	TurnLease time.Duration
	// DailyTokenLimit caps a tenant's model tokens per UTC day (0: no cap).
	DailyTokenLimit int
	// DailyCostLimitUSD caps a tenant's model cost per UTC day, at Prices
	// (0: no cap).
	DailyCostLimitUSD float64
	// CapOnError is CapClosed (default) or CapOpen: whether a turn whose
	// charge to the daily cap fails is refused or runs uncounted.
	CapOnError string
	// OutputAllowance is the output tokens a model call is assumed not to
	// exceed, for a turn's worst case (default DefaultOutputAllowance).
	OutputAllowance int
	// Prices prices the model's usage (default pricing.Defaults()).
	Prices pricing.Table
}

func (c Config) withDefaults() Config {
	if c.HistoryTurns <= 0 {
		c.HistoryTurns = 5
	}
	if c.MaxActiveNodes <= 0 {
		c.MaxActiveNodes = conversation.DefaultMaxActiveNodes
	}
	if c.StoreTimeout <= 0 {
		c.StoreTimeout = 5 * time.Second
	}
	if c.GraphTimeout <= 0 {
		c.GraphTimeout = 3 * time.Second
	}
	if c.AgentID == "" {
		c.AgentID = "regulatory-copilot.global"
	}
	if c.TokenBudget <= 0 {
		c.TokenBudget = DefaultTokenBudget
	}
	if c.ContextRequestTTL <= 0 {
		c.ContextRequestTTL = 15 * time.Minute
	}
	if c.PIIRedaction == "" {
		c.PIIRedaction = PIIBoth
	}
	if c.Tools == "" {
		c.Tools = ToolsAuto
	}
	if c.MaxModelCalls <= 0 {
		c.MaxModelCalls = 3
	}
	if c.TurnLease <= 0 {
		c.TurnLease = conversation.DefaultTurnLease
	}
	if c.CapOnError != CapOpen {
		c.CapOnError = CapClosed
	}
	if c.Prices == nil {
		c.Prices = pricing.Defaults()
	}
	if c.OutputAllowance <= 0 {
		c.OutputAllowance = DefaultOutputAllowance
	}
	return c
}

// DefaultTokenBudget leaves ample room for the answer in the context
// window of every supported model (the smallest is 128k tokens) while
// keeping each turn's cost bounded.
const DefaultTokenBudget = 12000

// Engine runs turns. Its dependencies are interfaces so the same engine runs
// locally (memory store, memory graph, in-process queue, offline model) and
// on Lambda (Postgres, Memgraph, SQS, OpenAI).
type Engine struct {
	store    Store
	graph    Graph
	provider llm.Provider
	concepts queue.Publisher
	log      *slog.Logger
	cfg      Config
	now      func() time.Time
	sheet    *prompt.Sheet
	tokens   *prompt.Tokenizer
	redact   redactor
	guard    *write.Guard
	refused  toolsRefused
	observe  TurnObserver
	unpriced unpricedModels
	words    ConceptMatcher
	// toolCosts are the tokens of each tool's definition, by name.
	toolCosts sync.Map
}

// Graph is what a turn reads from the rules graph: one grounding read
// before the model is called, one resolution read after it.
type Graph interface {
	graph.GroundingReader
	graph.ConceptResolver
}

// Store is what a turn needs of the conversation store: the turn's
// lifecycle, context handoff, and the daily cap's ledger. A store that also
// records streams (conversation.Streams) makes turns resumable.
type Store interface {
	StartTurn(ctx context.Context, tenantID, conversationID string, start conversation.TurnStart) (conversation.TurnState, error)
	StartConversation(ctx context.Context, c conversation.Conversation, start conversation.TurnStart) (conversation.TurnState, error)
	ReserveTurn(ctx context.Context, tenantID, conversationID string, t conversation.Turn) (int, error)
	RetryTurn(ctx context.Context, tenantID, conversationID string) (conversation.Turn, error)
	FinishTurn(ctx context.Context, tenantID, conversationID string, t conversation.Turn, f conversation.TurnFinish) error
	EndTurn(ctx context.Context, tenantID, conversationID, leaseID string) error
	AppendTurn(ctx context.Context, tenantID, conversationID string, t conversation.Turn) (int, error)
	MergeActiveNodes(ctx context.Context, tenantID, conversationID string, ids []string, maxNodes int) error

	CreateContextRequest(ctx context.Context, r conversation.ContextRequest) (conversation.ContextRequest, error)
	GetContextRequest(ctx context.Context, tenantID, conversationID, requestID string) (conversation.ContextRequest, error)
	ResolveContextRequest(ctx context.Context, tenantID, conversationID, requestID, status string) (conversation.ContextRequest, error)
	SupplyItems(ctx context.Context, tenantID, conversationID string, items []conversation.SuppliedItem) ([]conversation.SuppliedItem, error)
	TouchSuppliedItems(ctx context.Context, tenantID, conversationID string, itemIDs []string) error
	DeleteSuppliedItem(ctx context.Context, tenantID, conversationID, itemID string) error

	ChargeTokens(ctx context.Context, tenantID string, worst conversation.TokenCharge, limits conversation.DailyLimits) (conversation.TokenCharge, error)
	SettleTokens(ctx context.Context, tenantID string, c conversation.TokenCharge, s conversation.Settlement) error
}

// Deps are the engine's collaborators. Concepts may be nil (no capture).
type Deps struct {
	Store    Store
	Graph    Graph
	Provider llm.Provider
	Concepts queue.Publisher
	Log      *slog.Logger
	// Sheet is the prompt sheet (nil: the embedded default).
	Sheet *prompt.Sheet
	// Observe, if set, receives each finished turn's stats (metrics).
	Observe TurnObserver
	// Words, if set, finds the concepts a question's words name (inflected,
	// partial, or in a definition or a fact's label) before the turn's one
	// graph read: graph/textindex, kept fresh from the change feed.
	Words ConceptMatcher
}

// ConceptMatcher finds the official concepts a text's words name, best
// first, within jurisdictions, without reading the graph.
type ConceptMatcher interface {
	Match(text string, jurisdictions []string) []string
}

// New returns an engine.
func New(d Deps, cfg Config) *Engine {
	log := d.Log
	if log == nil {
		log = slog.Default()
	}
	cfg = cfg.withDefaults()
	e := &Engine{store: d.Store, graph: d.Graph, provider: d.Provider, concepts: d.Concepts,
		log: log, cfg: cfg, now: time.Now, sheet: d.Sheet, observe: d.Observe, words: d.Words,
		tokens: prompt.TokenizerForModel(cfg.Model), redact: newRedactor(cfg.PIIRedaction), guard: write.NewGuard()}
	if e.sheet == nil {
		e.sheet = prompt.DefaultSheet()
	}
	if len(e.cfg.PromptCacheSecret) == 0 {
		e.cfg.PromptCacheSecret = make([]byte, 32)
		_, _ = rand.Read(e.cfg.PromptCacheSecret) // never fails (crypto/rand)
	}
	return e
}

// Profile is the user profile a request may carry: the persona the answer
// addresses and the jurisdictions it applies to. The conversation remembers
// the last one sent.
type Profile = conversation.Profile

// Request is a validated chat request with its caller's identity.
type Request struct {
	TenantID       string
	UserID         string
	ConversationID string // empty: start a new conversation
	Message        string
	Profile        Profile
	Stateless      bool
	Messages       []llm.Message // stateless mode only: the client-held history
	RequestID      string        // for logs
	// AsOf is the date the client asks about (zero: taken from the
	// question, else today).
	AsOf time.Time
	// Supply is context supplied with this request (the context handoff). With a
	// RequestID and no Message, the turn answers the deferred question.
	Supply *Supply
	// ForceRun answers without the context a pending request asked for.
	ForceRun bool
	// Retry asks the conversation's last turn again, in place, when it
	// failed or was interrupted. It carries no message.
	Retry bool
	// Regenerate, with Retry, replaces the last answer whatever it ended
	// with (the AI SDK's regenerate()).
	Regenerate bool
	// ChatID is the client's own id for the conversation (the AI SDK's
	// chat id), used when ConversationID is empty: it continues the
	// caller's conversation it names, or starts one under it (chatid.go).
	ChatID string
}

func validUUID(s string) error {
	_, err := uuid.Parse(s)
	return err
}

// Validation errors are reported to the client before streaming.
var (
	ErrInvalid = errors.New("invalid chat request")
)

// Validate checks a request's content. Identity is checked by the caller.
func (r Request) Validate() error {
	if r.Supply != nil {
		if r.Stateless {
			return fmt.Errorf("%w: context cannot be supplied in stateless mode", ErrInvalid)
		}
		if r.Supply.RequestID != "" && r.ConversationID == "" {
			return fmt.Errorf("%w: contextSupply.requestId needs the conversationId it belongs to", ErrInvalid)
		}
		if err := r.Supply.validate(); err != nil {
			return err
		}
	}
	if err := validateChatID(r.ChatID); err != nil {
		return err
	}
	if r.Retry {
		return r.validateRetry()
	}
	answersRequest := r.Supply != nil && r.Supply.RequestID != ""
	if strings.TrimSpace(r.Message) == "" && !answersRequest {
		return fmt.Errorf("%w: message is required and must not be empty", ErrInvalid)
	}
	if n := len([]rune(r.Message)); n > MaxMessageChars {
		return fmt.Errorf("%w: message has %d characters; the limit is %d", ErrInvalid, n, MaxMessageChars)
	}
	if r.ConversationID != "" {
		if _, err := uuid.Parse(r.ConversationID); err != nil {
			return fmt.Errorf("%w: conversationId must be a UUID", ErrInvalid)
		}
		if r.Stateless {
			return fmt.Errorf("%w: a stateless request cannot name a conversationId", ErrInvalid)
		}
	}
	if len(r.Messages) > 0 && !r.Stateless {
		return fmt.Errorf("%w: messages are accepted only with \"stateless\": true; the server keeps the history of a conversation", ErrInvalid)
	}
	if len(r.Messages) > MaxHistoryItems {
		return fmt.Errorf("%w: at most %d history messages", ErrInvalid, MaxHistoryItems)
	}
	for i, m := range r.Messages {
		if m.Role != llm.RoleUser && m.Role != llm.RoleAssistant {
			return fmt.Errorf("%w: messages[%d].role must be \"user\" or \"assistant\"", ErrInvalid, i)
		}
		if len([]rune(m.Content)) > MaxMessageChars {
			return fmt.Errorf("%w: messages[%d] is over %d characters", ErrInvalid, i, MaxMessageChars)
		}
	}
	if _, err := r.Profile.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return nil
}

// validateRetry checks a retry: it names a stored conversation and asks
// nothing new, since the question is the failed turn's.
func (r Request) validateRetry() error {
	switch {
	case (r.ConversationID == "" && r.ChatID == "") || r.Stateless:
		return fmt.Errorf("%w: retry needs the conversationId of a stored conversation", ErrInvalid)
	case r.ConversationID != "" && validUUID(r.ConversationID) != nil:
		return fmt.Errorf("%w: conversationId must be a UUID", ErrInvalid)
	case r.Message != "" || len(r.Messages) > 0:
		return fmt.Errorf("%w: a retry asks the last turn's question again; send no message", ErrInvalid)
	case r.Supply != nil:
		return fmt.Errorf("%w: context cannot be supplied with a retry", ErrInvalid)
	}
	if _, err := r.Profile.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return nil
}
