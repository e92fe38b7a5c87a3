package compat

import (
	"encoding/json"
	"fmt"
	"net/http"

	"regintel/shared/conversation"
)

// ListPaths serves GET /api/conversations/{id}/paths: the one main path.
func (a *Adapter) ListPaths(w http.ResponseWriter, r *http.Request) {
	d, _, err := a.owned(r.Context(), a.d.Caller(r), r.PathValue("id"))
	if err != nil {
		a.failed(w, r, "list paths", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"paths": []Path{mainPath(d.Conversation, messageCount(d))}})
}

// GetActivePath serves GET /api/conversations/{id}/active-path: the main
// path, always active.
func (a *Adapter) GetActivePath(w http.ResponseWriter, r *http.Request) {
	a.servePath(w, r, "")
}

// GetPath serves GET /api/conversations/{id}/paths/{pathId}.
func (a *Adapter) GetPath(w http.ResponseWriter, r *http.Request) {
	a.servePath(w, r, r.PathValue("pathId"))
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
func (a *Adapter) SetActivePath(w http.ResponseWriter, r *http.Request) {
	var fields activePathFields
	if !a.d.DecodeJSON(w, r, &fields) {
		return
	}
	var pathID string
	for name, raw := range fields {
		if name != "pathId" {
			writeError(w, http.StatusBadRequest, "invalid_request", fmt.Sprintf("unknown field %q: send pathId only", name))
			return
		}
		if err := json.Unmarshal(raw, &pathID); err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request", "pathId must be a string")
			return
		}
	}
	if pathID == "" {
		writeError(w, http.StatusBadRequest, "invalid_request", "pathId is required")
		return
	}
	a.servePath(w, r, pathID)
}

// servePath answers {"path": main path}; a pathId other than the main
// path's is 404 (empty: any).
func (a *Adapter) servePath(w http.ResponseWriter, r *http.Request, pathID string) {
	d, _, err := a.owned(r.Context(), a.d.Caller(r), r.PathValue("id"))
	if err != nil {
		a.failed(w, r, "read path", err)
		return
	}
	if pathID != "" && pathID != mainPathID(d.Conversation) {
		writeError(w, http.StatusNotFound, "path_not_found", "no such path: a conversation has one main path")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"path": mainPath(d.Conversation, messageCount(d))})
}

// PathMessages serves GET /api/conversations/{id}/paths/{pathId}/messages:
// the messages of the main path, as GET /api/conversations/{id} has them.
func (a *Adapter) PathMessages(w http.ResponseWriter, r *http.Request) {
	d, _, err := a.owned(r.Context(), a.d.Caller(r), r.PathValue("id"))
	if err != nil {
		a.failed(w, r, "read path messages", err)
		return
	}
	if r.PathValue("pathId") != mainPathID(d.Conversation) {
		writeError(w, http.StatusNotFound, "path_not_found", "no such path: a conversation has one main path")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"messages": buildMessages(d, a.labelNodes(r.Context(), d.Turns))})
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
