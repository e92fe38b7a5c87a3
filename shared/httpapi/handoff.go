package httpapi

import (
	"errors"
	"net/http"
	"strings"

	"regintel/shared/chat"
	"regintel/shared/conversation"
)

// Context handoff routes (seed 004). They claim only these paths, with
// method patterns, next to the conversation API's.
func (a *API) handoffRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /conversations/{id}/context-requests/{requestId}", a.supplyContext)
	mux.HandleFunc("/conversations/{id}/context-requests/{requestId}", func(w http.ResponseWriter, _ *http.Request) {
		MethodNotAllowed(w, http.MethodPost)
	})
	mux.HandleFunc("DELETE /conversations/{id}/context-items/{itemId}", a.deleteContextItem)
	mux.HandleFunc("/conversations/{id}/context-items/{itemId}", func(w http.ResponseWriter, _ *http.Request) {
		MethodNotAllowed(w, http.MethodDelete)
	})
}

// supplyBody is the POST .../context-requests/{requestId} body.
type supplyBody struct {
	Items []chat.SuppliedInput `json:"items"`
}

// supplyContext stores the supplied items. With every required item
// present it answers the deferred question as an SSE stream (like
// POST /chat); otherwise 202 with what is still missing.
func (a *API) supplyContext(w http.ResponseWriter, r *http.Request) {
	caller, ok := a.Authenticate(w, r)
	if !ok {
		return
	}
	var body supplyBody
	if !DecodeJSON(w, r, &body) {
		return
	}
	conversationID := r.PathValue("id")
	if validID(conversationID) != nil {
		WriteError(w, http.StatusNotFound, "conversation_not_found", "no such conversation")
		return
	}
	a.prepareAndStream(w, r, chat.Request{
		TenantID: caller.TenantID, UserID: caller.UserID, ConversationID: conversationID,
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

// prepareAndStream prepares the turn, answering handoff outcomes and
// errors as JSON before any byte is streamed, then streams it.
func (a *API) prepareAndStream(w http.ResponseWriter, r *http.Request, req chat.Request) {
	turn, err := a.engine.Prepare(r.Context(), req)
	var partial *chat.PartialSupplyError
	var pending *chat.PendingRequestError
	var closed *chat.RequestClosedError
	switch {
	case err == nil:
		var sink chat.Sink = newSSESink(w)
		if wantsUIMessageStream(r) {
			sink = newUIStreamSink(w)
		}
		turn.Stream(r.Context(), sink)
	case errors.Is(err, chat.ErrInvalid):
		WriteError(w, http.StatusBadRequest, "invalid_request", strings.TrimPrefix(err.Error(), chat.ErrInvalid.Error()+": "))
	case errors.Is(err, chat.ErrNotFound):
		WriteError(w, http.StatusNotFound, "conversation_not_found", "no such conversation")
	case errors.Is(err, chat.ErrRequestNotFound):
		WriteError(w, http.StatusNotFound, "context_request_not_found", "no such context request in this conversation")
	case errors.Is(err, chat.ErrRequestExpired):
		WriteError(w, http.StatusGone, "context_request_expired", "the context request expired; send the question again")
	case errors.As(err, &closed):
		WriteError(w, http.StatusConflict, "context_request_closed", "the context request is already "+closed.Status)
	case errors.As(err, &partial):
		out := partialSupply{Status: "partial", RequestID: partial.Request.ID, Missing: partial.Missing,
			Supplied: []suppliedRef{}, ExpiresAt: partial.Request.ExpiresAt.UTC().Format("2006-01-02T15:04:05.000Z07:00")}
		for _, it := range partial.Supplied {
			out.Supplied = append(out.Supplied, suppliedRef{ID: it.ID, Key: it.Key, Kind: it.Kind, Redacted: it.Redacted})
		}
		WriteJSON(w, http.StatusAccepted, out)
	case errors.As(err, &pending):
		var out pendingError
		out.Error.Code = "context_required"
		out.Error.Message = "the assistant is waiting for context: supply it, or send \"forceRun\": true to answer without it"
		out.ContextRequest.RequestID = pending.Request.ID
		out.ContextRequest.Items = pending.Request.Items
		out.ContextRequest.ExpiresAt = pending.Request.ExpiresAt.UTC().Format("2006-01-02T15:04:05.000Z07:00")
		WriteJSON(w, http.StatusConflict, out)
	case errors.Is(err, chat.ErrHandoffUnavailable):
		WriteError(w, http.StatusNotImplemented, "handoff_unavailable", "context handoff is not available on this deployment")
	default:
		a.log.Error("prepare chat turn failed", "request_id", req.RequestID, "err", err)
		WriteError(w, http.StatusInternalServerError, "internal", "the turn could not be started")
	}
}

// deleteContextItem removes a supplied item; later turns no longer see it.
func (a *API) deleteContextItem(w http.ResponseWriter, r *http.Request) {
	caller, ok := a.Authenticate(w, r)
	if !ok {
		return
	}
	err := a.engine.DeleteSuppliedItem(r.Context(), caller.TenantID, r.PathValue("id"), r.PathValue("itemId"))
	switch {
	case err == nil:
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNoContent)
	case errors.Is(err, chat.ErrItemNotFound), errors.Is(err, conversation.ErrNotFound):
		WriteError(w, http.StatusNotFound, "context_item_not_found", "no such context item in this conversation")
	case errors.Is(err, chat.ErrHandoffUnavailable):
		WriteError(w, http.StatusNotImplemented, "handoff_unavailable", "context handoff is not available on this deployment")
	default:
		a.log.Error("delete context item failed", "request_id", RequestID(r.Context()), "err", err)
		WriteError(w, http.StatusInternalServerError, "internal", "the item could not be deleted")
	}
}
