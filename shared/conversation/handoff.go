package conversation

import (
	"context"
	"errors"
	"time"
)

// Context handoff: the model asks for context it lacks, the client
// supplies it, and the deferred question is answered. Supplied items stay
// with the conversation until the client deletes them.

// Statuses of a context request. Only pending moves, and only once.
const (
	RequestPending   = "pending"
	RequestFulfilled = "fulfilled"
	RequestExpired   = "expired"
	RequestSkipped   = "skipped"
)

// Kinds of requested and supplied context.
const (
	KindProfileFact = "profile_fact"
	KindDocument    = "document"
	KindText        = "text"
)

// ValidKind reports whether kind is one of the context kinds.
func ValidKind(kind string) bool {
	return kind == KindProfileFact || kind == KindDocument || kind == KindText
}

var (
	// ErrRequestNotFound is a context request that does not exist in the
	// caller's tenant and conversation.
	ErrRequestNotFound = errors.New("context request not found")
	// ErrRequestNotPending is a transition from a request that is no longer
	// pending (another caller fulfilled, skipped or expired it first).
	ErrRequestNotPending = errors.New("context request is no longer pending")
	// ErrItemNotFound is a supplied item that does not exist in the caller's
	// tenant and conversation.
	ErrItemNotFound = errors.New("supplied context item not found")
)

// RequestedItem is one piece of context the model asked for.
type RequestedItem struct {
	Key         string `json:"key"`
	Description string `json:"description"`
	Kind        string `json:"kind"`
	Required    bool   `json:"required"`
}

// ContextRequest is a deferred question waiting for context.
type ContextRequest struct {
	ID             string          `json:"id"`
	TenantID       string          `json:"-"`
	ConversationID string          `json:"conversationId"`
	Status         string          `json:"status"`
	Items          []RequestedItem `json:"items"`
	// Question is the user message answered once the context arrives.
	Question   string     `json:"question"`
	CreatedAt  time.Time  `json:"createdAt"`
	ExpiresAt  time.Time  `json:"expiresAt"`
	ResolvedAt *time.Time `json:"resolvedAt"`
}

// Expired reports whether a pending request is past its expiry at now.
func (r ContextRequest) Expired(now time.Time) bool {
	return r.Status == RequestPending && !now.Before(r.ExpiresAt)
}

// SuppliedItem is context the client supplied to a conversation.
type SuppliedItem struct {
	ID             string `json:"id"`
	TenantID       string `json:"-"`
	ConversationID string `json:"conversationId"`
	// RequestID is the request it answered ("" when supplied unasked).
	RequestID string `json:"requestId,omitempty"`
	Key       string `json:"key"`
	Kind      string `json:"kind"`
	Content   string `json:"content"`
	// Redacted is true when PII was removed from Content or Key before
	// storage.
	Redacted   bool      `json:"redacted"`
	CreatedAt  time.Time `json:"createdAt"`
	LastUsedAt time.Time `json:"lastUsedAt"`
}

// HandoffState is what a turn needs about handoff, loaded together: the
// newest pending request (nil if none) and the supplied items, oldest first.
type HandoffState struct {
	Pending *ContextRequest
	Items   []SuppliedItem
}

// ContextRequests persists context requests and supplied items. Every
// method is scoped by tenant and conversation. Writes to a conversation that
// does not exist in the tenant are ErrNotFound; a request or item outside
// the tenant and conversation is ErrRequestNotFound / ErrItemNotFound.
type ContextRequests interface {
	// CreateContextRequest stores r as pending and returns it with its id
	// and creation time. r.ExpiresAt must be set.
	CreateContextRequest(ctx context.Context, r ContextRequest) (ContextRequest, error)
	// GetContextRequest returns one request.
	GetContextRequest(ctx context.Context, tenantID, conversationID, requestID string) (ContextRequest, error)
	// ResolveContextRequest moves a pending request to status (fulfilled,
	// expired or skipped) and stamps resolved_at. Exactly one of concurrent
	// callers succeeds; the others get ErrRequestNotPending.
	ResolveContextRequest(ctx context.Context, tenantID, conversationID, requestID, status string) (ContextRequest, error)
	// SupplyItems stores items (an item replaces an earlier one with the
	// same key) and returns them with ids and timestamps.
	SupplyItems(ctx context.Context, tenantID, conversationID string, items []SuppliedItem) ([]SuppliedItem, error)
	// TouchSuppliedItems sets last_used_at of the items to now.
	TouchSuppliedItems(ctx context.Context, tenantID, conversationID string, itemIDs []string) error
	// DeleteSuppliedItem removes one item for good.
	DeleteSuppliedItem(ctx context.Context, tenantID, conversationID, itemID string) error
}
