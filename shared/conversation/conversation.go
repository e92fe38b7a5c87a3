// Package conversation holds the conversation domain: conversations,
// numbered turns, the per-conversation context (seed 000) and the store
// interface. conversation/postgres is the production store and
// conversation/memory the embedded local one.
package conversation

import (
	"context"
	"errors"
	"time"
)

// ErrNotFound is returned for a conversation that does not exist in the
// caller's tenant (whether or not it exists in another).
var ErrNotFound = errors.New("conversation not found")

// DefaultMaxActiveNodes caps ConversationContext.ActiveNodeIDs.
const DefaultMaxActiveNodes = 50

// Identity names the caller and, once known, the conversation (seed 000 §2.1).
type Identity struct {
	TenantID       string
	UserID         string
	ConversationID string
}

// Conversation is one chat thread owned by a tenant.
type Conversation struct {
	ID             string    `json:"id"`
	TenantID       string    `json:"-"`
	OwnerID        string    `json:"ownerId"`
	Title          string    `json:"title"`
	Jurisdictions  []string  `json:"jurisdictions"`
	Archived       bool      `json:"archived"`
	LastTurnNumber int       `json:"lastTurnNumber"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

// Context is the engine-owned memory of a conversation (seed 000 §2.2).
type Context struct {
	ActiveNodeIDs []string `json:"activeNodeIds"`
}

// Turn statuses.
const (
	TurnOK              = "ok"
	TurnFailed          = "failed"
	TurnContextRequired = "context_required"
)

// Usage is token usage of one turn.
type Usage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
	TotalTokens  int `json:"totalTokens"`
}

// Turn is one numbered user question and assistant answer with its metadata.
type Turn struct {
	Number          int            `json:"turnNumber"`
	UserText        string         `json:"userText"`
	AssistantText   string         `json:"assistantText"`
	Status          string         `json:"status"`
	Provider        string         `json:"provider"`
	Model           string         `json:"model"`
	Usage           Usage          `json:"usage"`
	LatencyMS       int64          `json:"latencyMs"`
	ReferencedNodes []string       `json:"referencedNodes"`
	Metadata        map[string]any `json:"metadata,omitempty"`
	CreatedAt       time.Time      `json:"createdAt"`
}

// TurnState is everything a new turn needs from storage, loaded together.
type TurnState struct {
	Conversation Conversation
	// History holds the last turns, oldest first.
	History []Turn
	Context Context
	// ContextErr is set when the conversation loaded but its context did not;
	// the turn goes on with the empty context (seed 000 §4.3).
	ContextErr error
	// Handoff is the pending context request and the supplied items, when
	// the store reads them in the same round trip (nil: ask the
	// ContextRequests store). HandoffErr is set when that part failed.
	Handoff    *HandoffState
	HandoffErr error
}

// Store persists conversations, turns and context. Every method is scoped by
// tenant; a conversation of another tenant is ErrNotFound.
type Store interface {
	// CreateConversation inserts a new conversation and returns it with its id.
	CreateConversation(ctx context.Context, c Conversation) (Conversation, error)
	// LoadTurnState loads the conversation, its last historyTurns turns and
	// its context in as few round trips as the backend allows.
	LoadTurnState(ctx context.Context, tenantID, conversationID string, historyTurns int) (TurnState, error)
	// AppendTurn stores t under the next turn number of the conversation,
	// atomically (concurrent appends get distinct consecutive numbers), and
	// returns that number.
	AppendTurn(ctx context.Context, tenantID, conversationID string, t Turn) (int, error)
	// MergeActiveNodes adds ids to the context's activeNodeIds in one atomic
	// step: an id seen again moves to the newest end, the list is capped at
	// maxNodes dropping the oldest.
	MergeActiveNodes(ctx context.Context, tenantID, conversationID string, ids []string, maxNodes int) error
}
