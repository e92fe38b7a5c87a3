package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"regintel/shared/chat"
	"regintel/shared/conversation"
	"regintel/shared/httpapi/reply"
)

// Every error a handler may return reaches the client as one status and
// code, wrapped or not; anything unknown is a 500 that says nothing more.
func TestHandlerErrorsMapToOneStatusAndCode(t *testing.T) {
	for _, tc := range []struct {
		err        error
		status     int
		code       string
		retryAfter string
	}{
		{reply.InvalidRequest.With("message is required"), 400, "invalid_request", ""},
		{fmt.Errorf("get conversation: %w", conversation.ErrNotFound), 404, "conversation_not_found", ""},
		{fmt.Errorf("list: %w", conversation.ErrInvalidCursor), 400, "invalid_cursor", ""},
		{conversation.ErrTurnInProgress, 409, "turn_in_progress", "2"},
		{conversation.ErrNotRetryable, 409, "not_retryable", ""},
		{conversation.ErrRequestNotFound, 404, "context_request_not_found", ""},
		{chat.ErrRequestExpired, 410, "context_request_expired", ""},
		{chat.ErrUsageUnavailable, 503, "usage_unavailable", "30"},
		{fmt.Errorf("%w: message is too long", chat.ErrInvalid), 400, "invalid_request", ""},
		{&chat.DailyLimitError{RetryAfter: 90*time.Second + time.Millisecond}, 429, "daily_token_limit", "91"},
		{&chat.DailyLimitError{RetryAfter: time.Hour, Cost: true}, 429, "daily_cost_limit", "3600"},
		{&chat.RequestClosedError{Status: "fulfilled"}, 409, "context_request_closed", ""},
		{errors.New("connection reset by peer"), 500, "internal", ""},
	} {
		w := httptest.NewRecorder()
		apiErrorOf(tc.err).Write(w)
		var body errorBody
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatalf("%v: body %q: %v", tc.err, w.Body, err)
		}
		if w.Code != tc.status || body.Error.Code != tc.code || w.Header().Get("Retry-After") != tc.retryAfter {
			t.Errorf("%v: %d %s Retry-After %q, want %d %s %q", tc.err, w.Code, body.Error.Code, w.Header().Get("Retry-After"), tc.status, tc.code, tc.retryAfter)
		}
		if tc.status == 500 && strings.Contains(w.Body.String(), "reset") {
			t.Errorf("an unknown error's text reached the client: %s", w.Body)
		}
	}
}

// The router logs an unknown error once, with the route, and a client
// error not at all.
func TestFailLogsOnlyWhatTheTableDoesNotKnow(t *testing.T) {
	var logs bytes.Buffer
	a := &API{log: slog.New(slog.NewJSONHandler(&logs, nil))}
	r := httptest.NewRequest(http.MethodGet, "/conversations", nil)
	a.fail(httptest.NewRecorder(), r, "listConversations", conversation.ErrNotFound)
	if logs.Len() != 0 {
		t.Errorf("a 404 was logged: %s", logs.String())
	}
	a.fail(httptest.NewRecorder(), r, "listConversations", errors.New("pool closed"))
	if n := strings.Count(logs.String(), "\n"); n != 1 || !strings.Contains(logs.String(), `"route":"listConversations"`) {
		t.Errorf("an unknown error logged %d lines: %s", n, logs.String())
	}
}
