package httpapi

import (
	"errors"
	"fmt"
	"net/http"

	"regintel/shared/chat"
	"regintel/shared/conversation"
	"regintel/shared/httpapi/reply"
)

// supplyBody is the POST .../context-requests/{requestId} body.
type supplyBody struct {
	Items []chat.SuppliedInput `json:"items"`
}

// supplyContext stores the supplied items. With every required item
// present it answers the deferred question as a stream (like POST /chat);
// otherwise 202 with what is still missing.
func (a *API) supplyContext(w http.ResponseWriter, r *http.Request) error {
	var body supplyBody
	if err := a.decodeJSON(w, r, &body); err != nil {
		return err
	}
	conversationID := r.PathValue("id")
	if validID(conversationID) != nil {
		return reply.ConversationNotFound
	}
	c := caller(r)
	return a.prepareAndStream(w, r, chat.Request{
		TenantID: c.TenantID, UserID: c.UserID, ConversationID: conversationID,
		RequestID: RequestID(r.Context()),
		Supply:    &chat.Supply{RequestID: r.PathValue("requestId"), Items: body.Items},
	})
}

func validID(id string) error {
	if len(id) != 36 {
		return errors.New("not a uuid")
	}
	return nil
}

const jsonTime = "2006-01-02T15:04:05.000Z07:00"

// partialSupply is the 202 answer to a supply that left required items out.
type partialSupply struct {
	Status    string                       `json:"status"` // "partial"
	RequestID string                       `json:"requestId"`
	Missing   []conversation.RequestedItem `json:"missing"`
	Supplied  []suppliedRef                `json:"supplied"`
	ExpiresAt string                       `json:"expiresAt"`
}

type suppliedRef struct {
	ID       string `json:"id"`
	Key      string `json:"key"`
	Kind     string `json:"kind"`
	Redacted bool   `json:"redacted"`
}

func newPartialSupply(p *chat.PartialSupplyError) partialSupply {
	out := partialSupply{Status: "partial", RequestID: p.Request.ID, Missing: p.Missing,
		Supplied: []suppliedRef{}, ExpiresAt: p.Request.ExpiresAt.UTC().Format(jsonTime)}
	for _, it := range p.Supplied {
		out.Supplied = append(out.Supplied, suppliedRef{ID: it.ID, Key: it.Key, Kind: it.Kind, Redacted: it.Redacted})
	}
	return out
}

// pendingError is the 409 answer to a message sent while a request waits.
type pendingError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	ContextRequest struct {
		RequestID string                       `json:"requestId"`
		Items     []conversation.RequestedItem `json:"items"`
		ExpiresAt string                       `json:"expiresAt"`
	} `json:"contextRequest"`
}

func newPendingError(p *chat.PendingRequestError) pendingError {
	var out pendingError
	out.Error.Code = "context_required"
	out.Error.Message = "the assistant is waiting for context: supply it, or send \"forceRun\": true to answer without it"
	out.ContextRequest.RequestID = p.Request.ID
	out.ContextRequest.Items = p.Request.Items
	out.ContextRequest.ExpiresAt = p.Request.ExpiresAt.UTC().Format(jsonTime)
	return out
}

// deleteContextItem removes a supplied item; later turns no longer see it.
func (a *API) deleteContextItem(w http.ResponseWriter, r *http.Request) error {
	err := a.engine.DeleteSuppliedItem(r.Context(), caller(r).TenantID, r.PathValue("id"), r.PathValue("itemId"))
	switch {
	case errors.Is(err, conversation.ErrItemNotFound), errors.Is(err, conversation.ErrNotFound):
		return reply.ItemNotFound
	case err != nil:
		return fmt.Errorf("delete context item: %w", err)
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}
