package httpapi

// The conversation routes (and the GDPR duties): list, read, rename or
// archive, erase and export the caller's conversations. Every call is
// scoped to the caller's tenant; another tenant's conversation is a 404.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"regintel/shared/conversation"
	"regintel/shared/graph"
	"regintel/shared/httpapi/reply"
)

// graphTimeout bounds the label lookup so a slow graph costs a read its
// labels, not its response.
const graphTimeout = 3 * time.Second

// listConversations serves GET /conversations?limit=&cursor=&archived=&q=:
// the caller's own conversations, newest activity first; with q, those
// holding every word of it in the title or a turn's text.
func (a *API) listConversations(w http.ResponseWriter, r *http.Request) error {
	c := caller(r)
	params := r.URL.Query()
	q := conversation.ListQuery{Cursor: params.Get("cursor")}
	if params.Has("cursor") && q.Cursor == "" {
		return reply.InvalidCursor.With("cursor is empty; omit it for the first page")
	}
	// A parameter sent empty is refused, not read as absent: an unset
	// variable in a client is a bug to surface, not a choice.
	if params.Has("limit") {
		n, err := strconv.Atoi(params.Get("limit"))
		if err != nil || n < 1 || n > conversation.MaxPageSize {
			return reply.InvalidRequest.With(fmt.Sprintf("limit must be a whole number from 1 to %d", conversation.MaxPageSize))
		}
		q.Limit = n
	}
	if params.Has("archived") {
		archived, err := strconv.ParseBool(params.Get("archived"))
		if err != nil {
			return reply.InvalidRequest.With("archived must be true or false")
		}
		q.Archived = &archived
	}
	if params.Has("q") {
		q.Search = params.Get("q")
		if _, err := conversation.SearchWords(q.Search); err != nil {
			return reply.InvalidRequest.With(errorReason(err))
		}
	}
	page, err := a.conversations.ListConversations(r.Context(), c.TenantID, q)
	if err != nil {
		return fmt.Errorf("list conversations: %w", err)
	}
	resp := listResponse{Conversations: page.Conversations}
	if page.NextCursor != "" {
		resp.NextCursor = &page.NextCursor
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
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

// getConversation serves GET /conversations/{id}.
func (a *API) getConversation(w http.ResponseWriter, r *http.Request) error {
	d, err := a.conversations.GetConversation(r.Context(), caller(r).TenantID, r.PathValue("id"))
	if err != nil {
		return fmt.Errorf("get conversation: %w", err)
	}
	resp := detailResponse{
		Conversation:           d.Conversation,
		Turns:                  d.Turns,
		PendingContextRequests: d.PendingRequests,
		SuppliedContextItems:   d.SuppliedItems,
	}
	resp.ActiveConcepts, resp.Warnings = a.labelConcepts(r.Context(), d.ActiveNodeIDs)
	return writeTaggedJSON(w, r, resp)
}

// labelConcepts returns ids in their stored (recency) order with the
// graph's labels. A graph failure leaves them unlabelled with a warning.
func (a *API) labelConcepts(ctx context.Context, ids []string) ([]ActiveConcept, []Warning) {
	concepts := make([]ActiveConcept, len(ids))
	for i, id := range ids {
		concepts[i].ID = id
	}
	if len(ids) == 0 {
		return concepts, nil
	}
	if a.graph == nil {
		return concepts, []Warning{{Code: "concept_labels_unavailable", Message: "no graph is configured"}}
	}
	ctx, cancel := context.WithTimeout(ctx, graphTimeout)
	defer cancel()
	nodes, err := a.graph.GetNodesByIDs(ctx, ids)
	if err != nil {
		a.log.Warn("label active concepts failed", "request_id", RequestID(ctx), "err", err)
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

// updateConversation serves PATCH /conversations/{id} with {"title"?: string,
// "archived"?: bool, "profile"?: {"personaType", "jurisdictions"}}. Unknown fields and nulls are refused rather than
// ignored, so a client typo never looks like success.
func (a *API) updateConversation(w http.ResponseWriter, r *http.Request) error {
	var fields conversationPatch
	if err := a.decodeJSON(w, r, &fields); err != nil {
		return err
	}
	update, problem := parseUpdate(fields)
	if problem != "" {
		return reply.InvalidRequest.With(problem)
	}
	c, err := a.conversations.UpdateConversation(r.Context(), caller(r).TenantID, r.PathValue("id"), update)
	if err != nil {
		return fmt.Errorf("update conversation: %w", err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"conversation": c})
	return nil
}

// conversationPatch is the PATCH body, field by field, so parseUpdate can
// refuse unknown fields and nulls; the strict decoder matches its names
// exactly against the fields it may hold.
type conversationPatch map[string]json.RawMessage

// JSONShape implements strictjson.Shaper.
func (conversationPatch) JSONShape() any {
	return struct {
		Title    *string               `json:"title"`
		Archived *bool                 `json:"archived"`
		Profile  *conversation.Profile `json:"profile"`
	}{}
}

// parseUpdate returns the update in fields, or a message saying what is
// wrong with them.
func parseUpdate(fields conversationPatch) (conversation.Update, string) {
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
		case "profile":
			var profile *conversation.Profile
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&profile); err != nil || profile == nil {
				return u, `profile must be {"personaType": string, "jurisdictions": [codes]}`
			}
			u.Profile = profile
		default:
			return u, fmt.Sprintf("unknown field %q: only title, archived and profile can be changed", name)
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

// deleteConversation serves DELETE /conversations/{id}: the conversation and every row
// tied to it are erased; later reads are 404.
func (a *API) deleteConversation(w http.ResponseWriter, r *http.Request) error {
	erased, err := a.conversations.DeleteConversation(r.Context(), caller(r).TenantID, r.PathValue("id"))
	if err != nil {
		return fmt.Errorf("delete conversation: %w", err)
	}
	// Counts only: an erasure leaves an audit line, never content.
	a.log.Info("conversation erased", "request_id", RequestID(r.Context()),
		"turns", erased.Turns, "contexts", erased.Contexts,
		"context_requests", erased.ContextRequests, "supplied_items", erased.SuppliedItems, "feedback", erased.Feedback)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// ExportFormat versions the export document.
const ExportFormat = "regintel.conversation-export.v1"

type exportResponse struct {
	Format     string    `json:"format"`
	ExportedAt time.Time `json:"exportedAt"`
	conversation.Export
}

// exportConversation serves GET /conversations/{id}/export: everything held about the
// conversation, as a JSON attachment.
func (a *API) exportConversation(w http.ResponseWriter, r *http.Request) error {
	held, err := a.conversations.ExportConversation(r.Context(), caller(r).TenantID, r.PathValue("id"))
	if err != nil {
		return fmt.Errorf("export conversation: %w", err)
	}
	if held.Sharing == nil && a.sharing != nil {
		// A store whose sharing settings sit beside it (memory).
		sh, err := a.sharing.GetSharing(r.Context(), caller(r).TenantID, held.Conversation.ID)
		if err != nil {
			return fmt.Errorf("export conversation sharing: %w", err)
		}
		if !sh.UpdatedAt.IsZero() {
			held.Sharing = &conversation.ExportedSharing{ShareAudience: sh.Audience, TenantAccess: sh.TenantAccess, UpdatedAt: sh.UpdatedAt}
		}
	}
	w.Header().Set("Content-Disposition", `attachment; filename="conversation-`+held.Conversation.ID+`.json"`)
	writeJSON(w, http.StatusOK, exportResponse{Format: ExportFormat, ExportedAt: a.now().UTC(), Export: held})
	return nil
}
