package compat

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"regintel/shared/auth"
	"regintel/shared/conversation"
	"regintel/shared/httpapi/reply"
)

// statusFilters maps the list's status parameter onto the archived flag.
var statusFilters = map[string]*bool{"active": ptr(false), "archived": ptr(true), "all": nil}

func ptr[T any](v T) *T { return &v }

// queryStatus reads the status filter: absent means active; otherwise one
// value, active, archived or all (an empty value is refused, so a client's
// unset variable is not read as a choice).
func queryStatus(r *http.Request) (status string, filter *bool, ok bool) {
	values, sent := r.URL.Query()["status"]
	if !sent {
		return "active", statusFilters["active"], true
	}
	if len(values) != 1 {
		return "", nil, false
	}
	status = values[0]
	filter, ok = statusFilters[status]
	return status, filter, ok
}

// ListConversations serves GET /api/conversations?status=active|archived|all
// (default active): the caller's conversations, newest activity first, one
// page of at most conversation.MaxPageSize.
func (a *Adapter) ListConversations(w http.ResponseWriter, r *http.Request) error {
	_, archived, ok := queryStatus(r)
	if !ok {
		return reply.InvalidRequest.With("status must be active, archived or all")
	}
	list, err := a.list(r.Context(), a.d.Host.Caller(r), archived)
	if err != nil {
		return fmt.Errorf("list conversations: %w", err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"conversations": list})
	return nil
}

// list reads one page of the caller's conversations with their sharing.
func (a *Adapter) list(ctx context.Context, c auth.Caller, archived *bool) ([]Conversation, error) {
	page, err := a.d.Conversations.ListConversations(ctx, c.TenantID,
		conversation.ListQuery{Archived: archived, Limit: conversation.MaxPageSize})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(page.Conversations))
	for i, conv := range page.Conversations {
		ids[i] = conv.ID
	}
	sharing, err := a.d.Sharing.ListSharing(ctx, c.TenantID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]Conversation, 0, len(page.Conversations))
	for _, conv := range page.Conversations {
		sh, ok := sharing[conv.ID]
		if !ok {
			sh = conversation.DefaultSharing
		}
		out = append(out, conversationView(conv, sh))
	}
	return out, nil
}

// owned reads the caller's conversation with every turn; a conversation of
// another user of the tenant is ErrNotFound, as one of another tenant is.
func (a *Adapter) owned(ctx context.Context, c auth.Caller, id string) (conversation.Detail, conversation.Sharing, error) {
	d, err := a.d.Conversations.GetConversation(ctx, c.TenantID, id)
	if err != nil {
		return d, conversation.Sharing{}, err
	}
	if d.Conversation.OwnerID != c.UserID {
		return conversation.Detail{}, conversation.Sharing{}, conversation.ErrNotFound
	}
	sh, err := a.d.Sharing.GetSharing(ctx, c.TenantID, id)
	return d, sh, err
}

// GetConversation serves GET /api/conversations/{id}: the conversation and
// its messages, two per turn.
func (a *Adapter) GetConversation(w http.ResponseWriter, r *http.Request) error {
	d, sh, err := a.owned(r.Context(), a.d.Host.Caller(r), r.PathValue("id"))
	if err != nil {
		return fmt.Errorf("get conversation: %w", err)
	}
	detail := ConversationDetail{Conversation: conversationView(d.Conversation, sh), ActivePathID: mainPathID(d.Conversation)}
	if p := d.Conversation.Profile; p != nil {
		detail.PersonaID = p.PersonaType
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"conversation": detail,
		"messages":     buildMessages(d, a.labelNodes(r.Context(), d.Turns)),
	})
	return nil
}

// patch is the body of PATCH /api/conversations/{id}; every field is
// optional, and a null title clears it.
type patch struct {
	Title         *json.RawMessage `json:"title"`
	Archived      *bool            `json:"archived"`
	ShareAudience *string          `json:"shareAudience"`
	TenantAccess  *string          `json:"tenantAccess"`
}

// patchFields is the PATCH body field by field, so parsePatch can refuse
// unknown fields; the strict decoder matches their names exactly against
// patch's.
type patchFields map[string]json.RawMessage

// JSONShape implements strictjson.Shaper.
func (patchFields) JSONShape() any { return patch{} }

// parsePatch reads the fields into a patch, or says what is wrong: an
// unknown field is refused so a typo never looks like success.
func parsePatch(fields patchFields) (patch, string) {
	var body patch
	if fields == nil {
		return body, "the body must be a JSON object"
	}
	for name, raw := range fields {
		var err error
		switch name {
		case "title":
			body.Title = &raw
		case "archived":
			err = json.Unmarshal(raw, &body.Archived)
		case "shareAudience":
			err = json.Unmarshal(raw, &body.ShareAudience)
		case "tenantAccess":
			err = json.Unmarshal(raw, &body.TenantAccess)
		default:
			return body, fmt.Sprintf("unknown field %q: only title, archived, shareAudience and tenantAccess can be changed", name)
		}
		if err != nil {
			return body, "field " + name + " has the wrong type"
		}
	}
	return body, ""
}

// UpdateConversation serves PATCH /api/conversations/{id}: title, archived,
// shareAudience and tenantAccess. Sharing is stored as asked and grants
// nothing.
func (a *Adapter) UpdateConversation(w http.ResponseWriter, r *http.Request) error {
	var fields patchFields
	if err := a.d.Host.DecodeJSON(w, r, &fields); err != nil {
		return err
	}
	body, problem := parsePatch(fields)
	if problem != "" {
		return reply.InvalidRequest.With(problem)
	}
	var u conversation.Update
	if body.Title != nil {
		var title *string
		if err := json.Unmarshal(*body.Title, &title); err != nil {
			return reply.InvalidRequest.With("title must be a string or null")
		}
		u.Title = ptr("")
		if title != nil {
			u.Title = title
		}
	}
	u.Archived = body.Archived
	c, id := a.d.Host.Caller(r), r.PathValue("id")
	// Reading the sharing checks the caller owns the conversation.
	sh, err := a.d.Sharing.GetSharing(r.Context(), c.TenantID, id)
	if err != nil {
		return fmt.Errorf("update conversation: %w", err)
	}
	wantSharing := body.ShareAudience != nil || body.TenantAccess != nil
	if body.ShareAudience != nil {
		sh.Audience = *body.ShareAudience
	}
	if body.TenantAccess != nil {
		sh.TenantAccess = *body.TenantAccess
	}
	if err := sh.Validate(); wantSharing && err != nil {
		return fmt.Errorf("update conversation: %w", err)
	}
	if !wantSharing && u.Title == nil && u.Archived == nil {
		return reply.InvalidRequest.With("nothing to change: send title, archived, shareAudience and/or tenantAccess")
	}
	conv, err := a.apply(r.Context(), c, id, u, sh, wantSharing)
	if err != nil {
		return fmt.Errorf("update conversation: %w", err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "conversation": conv})
	return nil
}

// apply stores the update and the sharing, then reads the conversation back.
func (a *Adapter) apply(ctx context.Context, c auth.Caller, id string, u conversation.Update, sh conversation.Sharing, setSharing bool) (Conversation, error) {
	if u.Title != nil || u.Archived != nil {
		valid, err := u.Validate()
		if err != nil {
			return Conversation{}, err
		}
		if _, err := a.d.Conversations.UpdateConversation(ctx, c.TenantID, id, valid); err != nil {
			return Conversation{}, err
		}
	}
	if setSharing {
		if _, err := a.d.Sharing.SetSharing(ctx, c.TenantID, id, sh); err != nil {
			return Conversation{}, err
		}
	}
	d, sh, err := a.owned(ctx, c, id)
	if err != nil {
		return Conversation{}, err
	}
	return conversationView(d.Conversation, sh), nil
}
