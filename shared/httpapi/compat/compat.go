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
	"errors"
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

// Deps is what the adapter reads and how it reaches the host's plumbing.
type Deps struct {
	Conversations conversation.Admin
	Sharing       conversation.SharingStore
	// Graph labels nodes; nil leaves them labelled by the turn's capture.
	Graph graph.Reader
	// Caller returns the authenticated caller of a request.
	Caller func(*http.Request) auth.Caller
	// DecodeJSON reads a request's JSON body into v with the host's strict
	// decoder, or answers the error and returns false.
	DecodeJSON func(w http.ResponseWriter, r *http.Request, v any) bool
	// RequestID returns the request's id, for logs.
	RequestID func(context.Context) string
	// OpenStream commits a streamed response whose life is bounded by the
	// host (client gone, maximum duration, Lambda deadline); close releases it.
	OpenStream func(w http.ResponseWriter, r *http.Request) (s Stream, close func())
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

func writeError(w http.ResponseWriter, status int, code, message string) {
	reply.Error(w, status, code, message)
}

func writeJSON(w http.ResponseWriter, status int, v any) { reply.JSON(w, status, v) }

// NotSupported answers the reference app's branching, merging and pinning
// routes: this backend keeps one line of turns per conversation.
func (a *Adapter) NotSupported(w http.ResponseWriter, _ *http.Request) {
	writeError(w, http.StatusNotImplemented, "not_supported",
		"branches, merges and pinned messages are not supported: a conversation is one main path")
}

// failed maps store errors to responses; unexpected ones are logged by
// request id and their text never reaches the client.
func (a *Adapter) failed(w http.ResponseWriter, r *http.Request, op string, err error) {
	switch {
	case errors.Is(err, conversation.ErrNotFound):
		writeError(w, http.StatusNotFound, "conversation_not_found", "no such conversation")
	case errors.Is(err, conversation.ErrInvalidUpdate), errors.Is(err, conversation.ErrInvalidSharing):
		writeError(w, http.StatusBadRequest, "invalid_request", lastReason(err))
	default:
		a.d.Log.Error(op+" failed", "request_id", a.d.RequestID(r.Context()), "err", err)
		writeError(w, http.StatusInternalServerError, "internal", "the request could not be completed")
	}
}

// lastReason is the part of a joined validation error after its sentinel.
func lastReason(err error) string {
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		if errs := joined.Unwrap(); len(errs) > 1 {
			return errs[len(errs)-1].Error()
		}
	}
	return err.Error()
}
