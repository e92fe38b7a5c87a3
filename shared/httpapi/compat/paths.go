package compat

import (
	"encoding/json"
	"fmt"
	"net/http"

	"regintel/shared/conversation"
	"regintel/shared/httpapi/reply"
)

// ListPaths serves GET /api/conversations/{id}/paths: the one main path.
func (a *Adapter) ListPaths(w http.ResponseWriter, r *http.Request) error {
	d, _, err := a.owned(r.Context(), a.d.Host.Caller(r), r.PathValue("id"))
	if err != nil {
		return fmt.Errorf("list paths: %w", err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"paths": []Path{mainPath(d.Conversation, messageCount(d))}})
	return nil
}

// GetActivePath serves GET /api/conversations/{id}/active-path: the main
// path, always active.
func (a *Adapter) GetActivePath(w http.ResponseWriter, r *http.Request) error {
	return a.servePath(w, r, "")
}

// GetPath serves GET /api/conversations/{id}/paths/{pathId}.
func (a *Adapter) GetPath(w http.ResponseWriter, r *http.Request) error {
	return a.servePath(w, r, r.PathValue("pathId"))
}

// activePathBody is the body of PUT /api/conversations/{id}/active-path.
type activePathBody struct {
	PathID string `json:"pathId"`
}

// activePathFields is that body field by field, so an unknown field can be
// refused; the strict decoder matches the names exactly.
type activePathFields map[string]json.RawMessage

// JSONShape implements strictjson.Shaper.
func (activePathFields) JSONShape() any { return activePathBody{} }

// SetActivePath serves PUT /api/conversations/{id}/active-path: only the
// main path can be made active, and it always is.
func (a *Adapter) SetActivePath(w http.ResponseWriter, r *http.Request) error {
	var fields activePathFields
	if err := a.d.Host.DecodeJSON(w, r, &fields); err != nil {
		return err
	}
	var pathID string
	for name, raw := range fields {
		if name != "pathId" {
			return reply.InvalidRequest.With(fmt.Sprintf("unknown field %q: send pathId only", name))
		}
		if err := json.Unmarshal(raw, &pathID); err != nil {
			return reply.InvalidRequest.With("pathId must be a string")
		}
	}
	if pathID == "" {
		return reply.InvalidRequest.With("pathId is required")
	}
	return a.servePath(w, r, pathID)
}

// servePath answers {"path": main path}; a pathId other than the main
// path's is 404 (empty: any).
func (a *Adapter) servePath(w http.ResponseWriter, r *http.Request, pathID string) error {
	d, _, err := a.owned(r.Context(), a.d.Host.Caller(r), r.PathValue("id"))
	if err != nil {
		return fmt.Errorf("read path: %w", err)
	}
	if pathID != "" && pathID != mainPathID(d.Conversation) {
		return reply.PathNotFound
	}
	writeJSON(w, http.StatusOK, map[string]any{"path": mainPath(d.Conversation, messageCount(d))})
	return nil
}

// PathMessages serves GET /api/conversations/{id}/paths/{pathId}/messages:
// the messages of the main path, as GET /api/conversations/{id} has them.
func (a *Adapter) PathMessages(w http.ResponseWriter, r *http.Request) error {
	d, _, err := a.owned(r.Context(), a.d.Host.Caller(r), r.PathValue("id"))
	if err != nil {
		return fmt.Errorf("read path messages: %w", err)
	}
	if r.PathValue("pathId") != mainPathID(d.Conversation) {
		return reply.PathNotFound
	}
	writeJSON(w, http.StatusOK, map[string]any{"messages": buildMessages(d, a.labelNodes(r.Context(), d.Turns))})
	return nil
}

// messageCount counts the messages buildMessages makes.
func messageCount(d conversation.Detail) int {
	n := 0
	for _, t := range d.Turns {
		n++
		if t.Status != conversation.TurnStreaming || t.AssistantText != "" {
			n++
		}
	}
	return n
}
