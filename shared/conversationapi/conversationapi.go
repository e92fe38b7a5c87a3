// Package conversationapi serves the conversation API (seed 003 and the
// GDPR duties): list, read, rename/archive, erase and export a caller's
// conversations. Identity comes from httpapi's authenticator; every call is
// scoped to the caller's tenant, and another tenant's conversation is a 404.
//
// Routes is registered through httpapi.Options.Routes. It claims only the
// paths below, with method patterns, so other handlers can add further
// paths under /conversations/{id}/.
package conversationapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"regintel/shared/conversation"
	"regintel/shared/graph"
	"regintel/shared/httpapi"
)

// Options wires the routes.
type Options struct {
	Store conversation.Admin
	// Graph labels the active concepts; nil leaves them unlabelled.
	Graph graph.Reader
	Log   *slog.Logger
	// Now stamps exports; nil means time.Now.
	Now func() time.Time
}

// graphTimeout bounds the label lookup so a slow graph costs a read its
// labels, not its response.
const graphTimeout = 3 * time.Second

type handlers struct {
	api   *httpapi.API
	store conversation.Admin
	graph graph.Reader
	log   *slog.Logger
	now   func() time.Time
}

// Routes returns the registration function for httpapi.Options.Routes.
func Routes(o Options) func(mux *http.ServeMux, a *httpapi.API) {
	return func(mux *http.ServeMux, a *httpapi.API) {
		h := &handlers{api: a, store: o.Store, graph: o.Graph, log: o.Log, now: o.Now}
		if h.log == nil {
			h.log = slog.Default()
		}
		if h.now == nil {
			h.now = time.Now
		}
		mux.HandleFunc("GET /conversations", h.list)
		mux.HandleFunc("GET /conversations/{id}", h.get)
		mux.HandleFunc("PATCH /conversations/{id}", h.patch)
		mux.HandleFunc("DELETE /conversations/{id}", h.delete)
		mux.HandleFunc("GET /conversations/{id}/export", h.export)
		// The bare paths catch every other method: without them the
		// catch-all route would answer 404 (or ServeMux a plain-text 405).
		mux.HandleFunc("/conversations", allowOnly(http.MethodGet, http.MethodHead))
		mux.HandleFunc("/conversations/{id}", allowOnly(http.MethodGet, http.MethodHead, http.MethodPatch, http.MethodDelete))
		mux.HandleFunc("/conversations/{id}/export", allowOnly(http.MethodGet, http.MethodHead))
	}
}

func allowOnly(methods ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		httpapi.MethodNotAllowed(w, methods...)
	}
}

// list serves GET /conversations?limit=&cursor=&archived=: the caller's own
// conversations, newest activity first.
func (h *handlers) list(w http.ResponseWriter, r *http.Request) {
	caller, ok := h.api.Authenticate(w, r)
	if !ok {
		return
	}
	params := r.URL.Query()
	q := conversation.ListQuery{OwnerID: caller.UserID, Cursor: params.Get("cursor")}
	if v := params.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > conversation.MaxPageSize {
			httpapi.WriteError(w, http.StatusBadRequest, "invalid_request",
				fmt.Sprintf("limit must be a whole number from 1 to %d", conversation.MaxPageSize))
			return
		}
		q.Limit = n
	}
	if v := params.Get("archived"); v != "" {
		archived, err := strconv.ParseBool(v)
		if err != nil {
			httpapi.WriteError(w, http.StatusBadRequest, "invalid_request", "archived must be true or false")
			return
		}
		q.Archived = &archived
	}
	page, err := h.store.ListConversations(r.Context(), caller.TenantID, q)
	if err != nil {
		h.fail(w, r, "list conversations", err)
		return
	}
	resp := listResponse{Conversations: page.Conversations}
	if page.NextCursor != "" {
		resp.NextCursor = &page.NextCursor
	}
	httpapi.WriteJSON(w, http.StatusOK, resp)
}

type listResponse struct {
	Conversations []conversation.Conversation `json:"conversations"`
	// NextCursor is null on the last page.
	NextCursor *string `json:"nextCursor"`
}

// ActiveConcept is one of the conversation's active concepts, labelled from
// the graph when it holds the node.
type ActiveConcept struct {
	ID           string `json:"id"`
	Label        string `json:"label,omitempty"`
	Jurisdiction string `json:"jurisdiction,omitempty"`
}

// Warning says what a response lacks and why (failures are additive).
type Warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type detailResponse struct {
	Conversation           conversation.Conversation     `json:"conversation"`
	Turns                  []conversation.Turn           `json:"turns"`
	PendingContextRequests []conversation.ContextRequest `json:"pendingContextRequests"`
	SuppliedContextItems   []conversation.SuppliedItem   `json:"suppliedContextItems"`
	ActiveConcepts         []ActiveConcept               `json:"activeConcepts"`
	Warnings               []Warning                     `json:"warnings,omitempty"`
}

// get serves GET /conversations/{id}.
func (h *handlers) get(w http.ResponseWriter, r *http.Request) {
	caller, ok := h.api.Authenticate(w, r)
	if !ok {
		return
	}
	d, err := h.store.GetConversation(r.Context(), caller.TenantID, r.PathValue("id"))
	if err != nil {
		h.fail(w, r, "get conversation", err)
		return
	}
	resp := detailResponse{
		Conversation:           d.Conversation,
		Turns:                  d.Turns,
		PendingContextRequests: d.PendingRequests,
		SuppliedContextItems:   d.SuppliedItems,
	}
	resp.ActiveConcepts, resp.Warnings = h.labelConcepts(r.Context(), d.ActiveNodeIDs)
	httpapi.WriteJSON(w, http.StatusOK, resp)
}

// labelConcepts returns ids in their stored (recency) order with the
// graph's labels. A graph failure leaves them unlabelled with a warning.
func (h *handlers) labelConcepts(ctx context.Context, ids []string) ([]ActiveConcept, []Warning) {
	concepts := make([]ActiveConcept, len(ids))
	for i, id := range ids {
		concepts[i].ID = id
	}
	if len(ids) == 0 {
		return concepts, nil
	}
	if h.graph == nil {
		return concepts, []Warning{{Code: "concept_labels_unavailable", Message: "no graph is configured"}}
	}
	ctx, cancel := context.WithTimeout(ctx, graphTimeout)
	defer cancel()
	nodes, err := h.graph.GetNodesByIDs(ctx, ids)
	if err != nil {
		h.log.Warn("label active concepts failed", "request_id", httpapi.RequestID(ctx), "err", err)
		return concepts, []Warning{{Code: "concept_labels_unavailable", Message: "the rules graph could not be reached; concepts are shown by id"}}
	}
	byID := make(map[string]graph.Node, len(nodes))
	for _, n := range nodes {
		byID[n.ID] = n
	}
	for i := range concepts {
		if n, ok := byID[concepts[i].ID]; ok {
			concepts[i].Label = n.PrefLabel
			concepts[i].Jurisdiction = n.Jurisdiction
		}
	}
	return concepts, nil
}

// patch serves PATCH /conversations/{id} with {"title"?: string,
// "archived"?: bool}. Unknown fields and nulls are refused rather than
// ignored, so a client typo never looks like success.
func (h *handlers) patch(w http.ResponseWriter, r *http.Request) {
	caller, ok := h.api.Authenticate(w, r)
	if !ok {
		return
	}
	var fields map[string]json.RawMessage
	if !httpapi.DecodeJSON(w, r, &fields) {
		return
	}
	update, problem := parseUpdate(fields)
	if problem != "" {
		httpapi.WriteError(w, http.StatusBadRequest, "invalid_request", problem)
		return
	}
	c, err := h.store.UpdateConversation(r.Context(), caller.TenantID, r.PathValue("id"), update)
	if err != nil {
		h.fail(w, r, "update conversation", err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"conversation": c})
}

// parseUpdate returns the update in fields, or a message saying what is
// wrong with them.
func parseUpdate(fields map[string]json.RawMessage) (conversation.Update, string) {
	if fields == nil {
		return conversation.Update{}, "the body must be a JSON object"
	}
	var u conversation.Update
	for name, raw := range fields {
		switch name {
		case "title":
			var title *string
			if err := json.Unmarshal(raw, &title); err != nil || title == nil {
				return u, "title must be a string"
			}
			u.Title = title
		case "archived":
			var archived *bool
			if err := json.Unmarshal(raw, &archived); err != nil || archived == nil {
				return u, "archived must be true or false"
			}
			u.Archived = archived
		default:
			return u, fmt.Sprintf("unknown field %q: only title and archived can be changed", name)
		}
	}
	u, err := u.Validate()
	if err != nil {
		return u, errorReason(err)
	}
	return u, ""
}

// errorReason is the part of an ErrInvalidUpdate after the sentinel.
func errorReason(err error) string {
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		if errs := joined.Unwrap(); len(errs) > 1 {
			return errs[len(errs)-1].Error()
		}
	}
	return err.Error()
}

// delete serves DELETE /conversations/{id}: the conversation and every row
// tied to it are erased; later reads are 404.
func (h *handlers) delete(w http.ResponseWriter, r *http.Request) {
	caller, ok := h.api.Authenticate(w, r)
	if !ok {
		return
	}
	erased, err := h.store.DeleteConversation(r.Context(), caller.TenantID, r.PathValue("id"))
	if err != nil {
		h.fail(w, r, "delete conversation", err)
		return
	}
	// Counts only: an erasure leaves an audit line, never content.
	h.log.Info("conversation erased", "request_id", httpapi.RequestID(r.Context()),
		"turns", erased.Turns, "contexts", erased.Contexts,
		"context_requests", erased.ContextRequests, "supplied_items", erased.SuppliedItems)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
}

// ExportFormat versions the export document.
const ExportFormat = "regintel.conversation-export.v1"

type exportResponse struct {
	Format     string    `json:"format"`
	ExportedAt time.Time `json:"exportedAt"`
	conversation.Export
}

// export serves GET /conversations/{id}/export: everything held about the
// conversation, as a JSON attachment.
func (h *handlers) export(w http.ResponseWriter, r *http.Request) {
	caller, ok := h.api.Authenticate(w, r)
	if !ok {
		return
	}
	held, err := h.store.ExportConversation(r.Context(), caller.TenantID, r.PathValue("id"))
	if err != nil {
		h.fail(w, r, "export conversation", err)
		return
	}
	w.Header().Set("Content-Disposition", `attachment; filename="conversation-`+held.Conversation.ID+`.json"`)
	httpapi.WriteJSON(w, http.StatusOK, exportResponse{Format: ExportFormat, ExportedAt: h.now().UTC(), Export: held})
}

// fail maps store errors to responses. Unexpected errors are logged by
// request id; their text never reaches the client.
func (h *handlers) fail(w http.ResponseWriter, r *http.Request, op string, err error) {
	switch {
	case errors.Is(err, conversation.ErrNotFound):
		httpapi.WriteError(w, http.StatusNotFound, "conversation_not_found", "no such conversation")
	case errors.Is(err, conversation.ErrInvalidCursor):
		httpapi.WriteError(w, http.StatusBadRequest, "invalid_cursor", "the cursor is not one this API issued")
	case errors.Is(err, conversation.ErrInvalidUpdate):
		httpapi.WriteError(w, http.StatusBadRequest, "invalid_request", errorReason(err))
	default:
		h.log.Error(op+" failed", "request_id", httpapi.RequestID(r.Context()), "err", err)
		httpapi.WriteError(w, http.StatusInternalServerError, "internal", "the request could not be completed")
	}
}
