package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"regintel/shared/chat"
	"regintel/shared/conversation"
	"regintel/shared/httpapi/reply"
)

// errorBody is the JSON error every non-streamed failure returns.
type errorBody = reply.ErrorBody

// apiError is a failure as the client reads it; reply holds the table of
// codes.
type apiError = reply.APIError

// domainErrors are the stores' and the engine's sentinels as the client
// reads them.
var domainErrors = []struct {
	target error
	reply  *apiError
}{
	{conversation.ErrNotFound, reply.ConversationNotFound},
	{conversation.ErrInvalidCursor, reply.InvalidCursor},
	{conversation.ErrNotRetryable, reply.NotRetryable},
	{conversation.ErrTurnInProgress, reply.TurnInProgress},
	{conversation.ErrRequestNotFound, reply.RequestNotFound},
	{conversation.ErrTurnNotFound, reply.TurnNotFound},
	{chat.ErrRequestExpired, reply.RequestExpired},
	{chat.ErrUsageUnavailable, reply.UsageUnavailable},
}

// apiErrorOf maps an error a handler returned to the one the client gets:
// an apiError as it is, a domain error by the table, anything else
// reply.Internal.
func apiErrorOf(err error) *apiError {
	var e *apiError
	var limited *chat.DailyLimitError
	var closed *chat.RequestClosedError
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, chat.ErrInvalid):
		return reply.InvalidRequest.With(strings.TrimPrefix(err.Error(), chat.ErrInvalid.Error()+": "))
	case errors.Is(err, conversation.ErrInvalidUpdate), errors.Is(err, conversation.ErrInvalidSharing),
		errors.Is(err, conversation.ErrInvalidFeedback):
		return reply.InvalidRequest.With(errorReason(err))
	case errors.As(err, &limited):
		limit := *reply.DailyTokenLimit
		if limited.Cost {
			limit = *reply.DailyCostLimit
		}
		limit.RetryAfter = strconv.Itoa(int(limited.RetryAfter.Seconds() + 0.999))
		return &limit
	case errors.As(err, &closed):
		return reply.RequestClosed.With("the context request is already " + closed.Status)
	}
	for _, d := range domainErrors {
		if errors.Is(err, d.target) {
			return d.reply
		}
	}
	return reply.Internal
}

// fail writes what a handler returned, once: a context request's partial
// supply or pending request as their own bodies, any other error as its
// apiError. An error the table does not know is logged with the request id
// and answered 500.
func (a *API) fail(w http.ResponseWriter, r *http.Request, route string, err error) {
	var partial *chat.PartialSupplyError
	var pending *chat.PendingRequestError
	switch {
	case errors.As(err, &partial):
		writeJSON(w, http.StatusAccepted, newPartialSupply(partial))
	case errors.As(err, &pending):
		writeJSON(w, http.StatusConflict, newPendingError(pending))
	default:
		e := apiErrorOf(err)
		if e == reply.Internal {
			a.log.Error("request failed", "request_id", RequestID(r.Context()), "route", route, "err", err)
		}
		e.Write(w)
	}
}

// writeError writes a failure outside a handler (the router's 404 and 405,
// CORS, the route timeout).
func writeError(w http.ResponseWriter, e *apiError) { e.Write(w) }

func writeJSON(w http.ResponseWriter, status int, v any) { reply.JSON(w, status, v) }
