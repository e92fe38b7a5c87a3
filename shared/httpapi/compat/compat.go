// Package compat is the compatibility surface for the reference copilot's
// web app: its routes under /api/ answer in the shapes that app reads,
// mapped from our own conversations, turns and graph nodes. The core API
// stays as it is; httpapi mounts these handlers through its routes table
// when COMPAT_API is on.
//
// Sharing settings are accepted and stored, but grant nothing: every read
// and write is the owner's alone, and responses say so with
// effectiveAccess "owner". Branching, merging and pinning are not part of
// this backend; their routes answer 501 not_supported.
package compat

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"regintel/shared/auth"
	"regintel/shared/conversation"
	"regintel/shared/graph"
	"regintel/shared/httpapi/reply"
)

// EffectiveAccess is who may read and change a conversation, whatever its
// sharing settings say: its owner only.
const EffectiveAccess = "owner"

// Stream is an open event stream: Send writes one frame (an empty event
// name makes an unnamed frame); Context ends when the stream must close.
type Stream interface {
	Context() context.Context
	Send(id, event string, data []byte) error
}

// Host is what the adapter needs from the server that mounts it.
type Host interface {
	// Caller returns the authenticated caller of a request.
	Caller(r *http.Request) auth.Caller
	// DecodeJSON reads a request's JSON body into v with the host's strict
	// decoder, or returns the error to answer.
	DecodeJSON(w http.ResponseWriter, r *http.Request, v any) error
	// RequestID returns the request's id, for logs.
	RequestID(ctx context.Context) string
	// OpenStream commits a streamed response whose life is bounded by the
	// host (client gone, maximum duration, Lambda deadline); close releases it.
	OpenStream(w http.ResponseWriter, r *http.Request) (s Stream, close func())
}

// Conversations is what the adapter reads and changes of the caller's
// conversations.
type Conversations interface {
	ListConversations(ctx context.Context, tenantID string, q conversation.ListQuery) (conversation.Page, error)
	GetConversation(ctx context.Context, tenantID, conversationID string) (conversation.Detail, error)
	UpdateConversation(ctx context.Context, tenantID, conversationID string, u conversation.Update) (conversation.Conversation, error)
}

// Deps is what the adapter reads and the host it is mounted on.
type Deps struct {
	Host          Host
	Conversations Conversations
	Sharing       conversation.SharingStore
	// Graph labels nodes; nil leaves them labelled by the turn's capture.
	Graph graph.Reader
	// PollInterval is how often the conversation list stream reads the
	// store (default 2s).
	PollInterval time.Duration
	Log          *slog.Logger
}

// Adapter serves the compatibility routes.
type Adapter struct {
	d Deps
}

// New returns the adapter over d.
func New(d Deps) *Adapter {
	if d.PollInterval <= 0 {
		d.PollInterval = 2 * time.Second
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	return &Adapter{d: d}
}

// graphTimeout bounds a label lookup, so a slow graph costs labels, not
// the response.
const graphTimeout = 3 * time.Second

func writeJSON(w http.ResponseWriter, status int, v any) { reply.JSON(w, status, v) }

// NotSupported answers the reference app's branching, merging and pinning
// routes: this backend keeps one line of turns per conversation.
func (a *Adapter) NotSupported(_ http.ResponseWriter, _ *http.Request) error {
	return reply.NotSupported.With("branches, merges and pinned messages are not supported: a conversation is one main path")
}
