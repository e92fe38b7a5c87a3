package reply

import "net/http"

// APIError is a failure as the client reads it: the HTTP status, a stable
// code, a message for people and, for a failure that passes by itself, the
// seconds to wait (Retry-After). Handlers return one; the router writes it.
type APIError struct {
	Status     int
	Code       string
	Message    string
	RetryAfter string
}

func (e *APIError) Error() string { return e.Code + ": " + e.Message }

// Write sends the error in the API's one error shape.
func (e *APIError) Write(w http.ResponseWriter) {
	if e.RetryAfter != "" {
		w.Header().Set("Retry-After", e.RetryAfter)
	}
	Error(w, e.Status, e.Code, e.Message)
}

// With returns a copy of e with another message: the same code, told
// about this request.
func (e *APIError) With(message string) *APIError {
	c := *e
	c.Message = message
	return &c
}

// The error codes every route answers with. A route with its own message
// uses With; the code and status stay the table's.
var (
	BadRequest     = &APIError{Status: http.StatusBadRequest, Code: "bad_request", Message: "the body could not be read"}
	InvalidRequest = &APIError{Status: http.StatusBadRequest, Code: "invalid_request", Message: "the request is not valid"}
	MalformedJSON  = &APIError{Status: http.StatusBadRequest, Code: "malformed_json", Message: "the body is not valid JSON for this endpoint"}
	// InvalidInput and FactsMissing are POST /calculate's 400s: the message
	// names the field ("inputs.income: must not be negative") or the
	// series the graph lacks on the date.
	InvalidInput         = &APIError{Status: http.StatusBadRequest, Code: "invalid_input", Message: "an input of the calculation is not valid"}
	FactsMissing         = &APIError{Status: http.StatusBadRequest, Code: "facts_missing", Message: "the graph has no value for this date"}
	InvalidCursor        = &APIError{Status: http.StatusBadRequest, Code: "invalid_cursor", Message: "the cursor is not a page position (a nextCursor: SECONDS.NANOSECONDS_ID)"}
	Unauthorized         = &APIError{Status: http.StatusUnauthorized, Code: "unauthorized", Message: "a valid bearer token is required"}
	MethodNotAllowed     = &APIError{Status: http.StatusMethodNotAllowed, Code: "method_not_allowed", Message: "this method is not allowed here"}
	CORSOriginRefused    = &APIError{Status: http.StatusForbidden, Code: "cors_origin_refused", Message: "CORS: this origin may not call the API (see CORS_ORIGINS)"}
	NotFound             = &APIError{Status: http.StatusNotFound, Code: "not_found", Message: "no such route"}
	ConversationNotFound = &APIError{Status: http.StatusNotFound, Code: "conversation_not_found", Message: "no such conversation"}
	RequestNotFound      = &APIError{Status: http.StatusNotFound, Code: "context_request_not_found", Message: "no such context request in this conversation"}
	TurnNotFound         = &APIError{Status: http.StatusNotFound, Code: "turn_not_found", Message: "no such turn in this conversation"}
	ItemNotFound         = &APIError{Status: http.StatusNotFound, Code: "context_item_not_found", Message: "no such context item in this conversation"}
	PathNotFound         = &APIError{Status: http.StatusNotFound, Code: "path_not_found", Message: "no such path: a conversation has one main path"}
	RequestTimeout       = &APIError{Status: http.StatusRequestTimeout, Code: "body_timeout", Message: "the body did not arrive in time"}
	NotRetryable         = &APIError{Status: http.StatusConflict, Code: "not_retryable", Message: "only a last turn that failed or was interrupted can be retried"}
	TurnInProgress       = &APIError{Status: http.StatusConflict, Code: "turn_in_progress", RetryAfter: "2",
		Message: "the previous answer in this conversation is still being written; send the message once it is done"}
	RequestClosed      = &APIError{Status: http.StatusConflict, Code: "context_request_closed", Message: "the context request is already closed"}
	RequestExpired     = &APIError{Status: http.StatusGone, Code: "context_request_expired", Message: "the context request expired; send the question again"}
	BodyTooLarge       = &APIError{Status: http.StatusRequestEntityTooLarge, Code: "body_too_large", Message: "the body is too large"}
	UnsupportedMedia   = &APIError{Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type", Message: "send the body as application/json"}
	UnsupportedCharset = &APIError{Status: http.StatusUnsupportedMediaType, Code: "unsupported_charset", Message: "send the body as UTF-8 (charset=utf-8, or no charset)"}
	DailyTokenLimit    = &APIError{Status: http.StatusTooManyRequests, Code: "daily_token_limit",
		Message: "this organisation has used its tokens for today (UTC); try again tomorrow"}
	DailyCostLimit = &APIError{Status: http.StatusTooManyRequests, Code: "daily_cost_limit",
		Message: "this organisation has reached its spending limit for today (UTC); try again tomorrow"}
	TooManyFollowers = &APIError{Status: http.StatusTooManyRequests, Code: "too_many_followers", RetryAfter: "5",
		Message: "this conversation's answer already has as many readers as it may; try again shortly"}
	Internal         = &APIError{Status: http.StatusInternalServerError, Code: "internal", Message: "the request could not be completed"}
	NotConfigured    = &APIError{Status: http.StatusNotImplemented, Code: "not_configured", Message: "this route is not available on this deployment"}
	NotSupported     = &APIError{Status: http.StatusNotImplemented, Code: "not_supported", Message: "this operation is not supported"}
	UsageUnavailable = &APIError{Status: http.StatusServiceUnavailable, Code: "usage_unavailable", RetryAfter: "30",
		Message: "this organisation's token usage cannot be checked right now, so the daily limit cannot be applied; try again shortly"}
	GraphUnavailable = &APIError{Status: http.StatusServiceUnavailable, Code: "graph_unavailable", Message: "the graph could not be read"}
	Timeout          = &APIError{Status: http.StatusGatewayTimeout, Code: "timeout", Message: "the request took too long; try again"}
)
