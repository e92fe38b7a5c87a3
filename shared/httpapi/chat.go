package httpapi

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"regintel/shared/chat"
	"regintel/shared/conversation"
	"regintel/shared/httpapi/reply"
)

// chatBody is the POST /chat request body. Identity never comes from it.
type chatBody struct {
	ConversationID string        `json:"conversationId"`
	Message        *string       `json:"message"`
	Profile        *chat.Profile `json:"profile"`
	Stateless      bool          `json:"stateless"`
	Messages       chatMessages  `json:"messages"`
	// AsOf is the date the question is about (YYYY-MM-DD).
	AsOf *string `json:"asOf"`
	// ContextSupply supplies context inline; with its requestId and no
	// message, the deferred question is answered.
	ContextSupply *chat.Supply `json:"contextSupply"`
	// ForceRun answers without the context a pending request asked for.
	ForceRun bool `json:"forceRun"`
	// Retry asks the conversation's failed or interrupted last turn again,
	// in place; it carries no message.
	Retry bool `json:"retry"`
	// ID is the AI SDK's chat id: without a conversationId it names the
	// conversation (chat.Request.ChatID).
	ID string `json:"id"`
	// Trigger is the AI SDK's: "regenerate-message" replaces the last
	// answer in place.
	Trigger string `json:"trigger"`
}

// triggerRegenerate is the AI SDK's trigger of regenerate().
const triggerRegenerate = "regenerate-message"

// chat serves POST /chat: one turn, streamed.
func (a *API) chat(w http.ResponseWriter, r *http.Request) error {
	var body chatBody
	limit := int64(MaxBodyBytes)
	plain := acceptPlainJSON(r)
	if wantsUIMessageStream(r) || plain {
		limit = MaxUIMessagesBodyBytes
	}
	if err := a.decodeJSONUpTo(w, r, &body, limit); err != nil {
		return err
	}
	readSDKBody(r, &body)
	regenerate := body.Trigger == triggerRegenerate
	if regenerate {
		body.Retry = true
	}
	sentMessages := body.Messages.list != nil
	if body.Message == nil && (wantsUIMessageStream(r) || sentMessages) {
		// A useChat body is read as one whatever protocol answers it; a
		// body with a message is a ChatRequest on either protocol.
		fromUIMessages(&body)
	}
	answersRequest := body.ContextSupply != nil && body.ContextSupply.RequestID != ""
	if !body.Stateless && (body.Retry || answersRequest) {
		// A retry or an answered request continues a stored conversation,
		// whose history is the server's: a client's copy is ignored, as the
		// document says, whichever protocol is asked for.
		body.Messages.list = nil
	}
	if body.Message == nil && !body.Retry && !answersRequest {
		if sentMessages {
			return reply.InvalidRequest.With("messages hold no question: no user message has text")
		}
		return reply.InvalidRequest.With("message is required")
	}
	c := caller(r)
	req := chat.Request{
		TenantID: c.TenantID, UserID: c.UserID, ConversationID: strings.TrimSpace(body.ConversationID),
		Stateless: body.Stateless, Messages: body.Messages.list,
		RequestID: RequestID(r.Context()), Supply: body.ContextSupply, ForceRun: body.ForceRun, Retry: body.Retry,
		Regenerate: regenerate,
	}
	if req.ConversationID == "" && !req.Stateless {
		req.ChatID = strings.TrimSpace(body.ID)
	}
	if body.Message != nil {
		req.Message = *body.Message
	}
	if body.Profile != nil {
		req.Profile = *body.Profile
	}
	var err error
	if req.AsOf, err = requestedAsOf(body.AsOf); err != nil {
		return err
	}
	return a.prepareAndStream(w, r, req)
}

// prepareAndStream prepares the turn, returning handoff outcomes and
// errors before any byte is streamed, then streams it.
func (a *API) prepareAndStream(w http.ResponseWriter, r *http.Request, req chat.Request) error {
	turn, err := a.engine.Prepare(r.Context(), req)
	if err != nil {
		return err
	}
	if id := turn.ConversationID(); id != "" {
		w.Header().Set(HeaderConversationID, id)
	}
	if turn.Recordable() {
		// The AI SDK's WorkflowChatTransport reconnects to /chat/{it}/stream.
		w.Header().Set(HeaderWorkflowRunID, turn.ConversationID())
	}
	sse := newSSEWriter(w)
	sink := newTurnSink(w, r, sse, turn.Number())
	sse.start()
	stop := sse.keepAlive(r.Context(), a.keepAlive)
	defer stop()
	if turn.Recordable() {
		turn.StreamRecorded(r.Context(), sink)
		return nil
	}
	turn.Stream(r.Context(), sink)
	return nil
}

// turnSink is a turn's stream in the protocol the request asked for.
type turnSink interface {
	chat.HoldingSink
	chat.RecordedSink
}

func newTurnSink(w http.ResponseWriter, r *http.Request, sse *sseWriter, turnNumber int) turnSink {
	if wantsUIMessageStream(r) {
		return newUIStreamSink(w, sse)
	}
	return chatSink{sse: sse, turn: turnNumber}
}

// chatSink writes chat events as named SSE frames ("event: NAME\ndata:
// JSON\n\n"). The start and done events go out at once, with whatever is
// held; the others are held until the engine flushes (before it waits on
// the model) or the stream ends, so a turn's end is one write. A recorded
// turn's events carry an id ("TURN:SEQ"), for Last-Event-ID.
type chatSink struct {
	sse  *sseWriter
	turn int
}

// Format implements chat.RecordedSink.
func (chatSink) Format() string { return "sse" }

// Recorded implements chat.RecordedSink: held until Flush.
func (s chatSink) Recorded(ev conversation.StreamEvent) error {
	return s.sse.hold(streamEventID(s.turn, ev.Seq), ev.Name, ev.Data)
}

// Event implements chat.Sink.
func (s chatSink) Event(name string, data any) error {
	payload, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", name, err)
	}
	if name == chat.EventStart || name == chat.EventDone {
		return s.sse.event("", name, payload)
	}
	return s.sse.hold("", name, payload)
}

// Flush implements chat.HoldingSink.
func (s chatSink) Flush() error { return s.sse.flush() }

// acceptPlainJSON lets POST /chat read a body sent as text/plain, or with
// no media type, as JSON: fetch labels a string body text/plain, and the
// AI SDK's WorkflowChatTransport sends its JSON that way unless told
// otherwise. Such a POST needs no preflight, so a page of an origin the
// API does not allow gets 415, as before. It reports whether the request
// was such a body.
func acceptPlainJSON(r *http.Request) bool {
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if r.Header.Get("Content-Type") != "" && (err != nil || mediaType != "text/plain") {
		return false
	}
	if fromForeignOrigin(r) {
		// A text/plain POST needs no preflight: from a page of an origin
		// the API does not allow, it stays refused (415), so such a page
		// cannot run turns (under dev auth, which needs no header).
		return false
	}
	value := "application/json"
	if charset, ok := params["charset"]; ok {
		value += "; charset=" + charset
	}
	r.Header.Set("Content-Type", value)
	return true
}

// messagesOnly reports whether the body is a useChat one: messages and no
// message, retry or context supply.
func (b *chatBody) messagesOnly() bool {
	return b.Message == nil && b.Messages.list != nil && !b.Retry && b.ContextSupply == nil
}

// readSDKBody reads what the AI SDK's transports leave unsaid. A trigger,
// or a useChat body (messagesOnly: the question is its last user message
// with text), asks for the UI message stream when no protocol is named. With no chat id (WorkflowChatTransport
// given only its URL), the chat's first message, which the client resends
// every turn, names the chat.
func readSDKBody(r *http.Request, body *chatBody) {
	if !protocolAsked(r) && (body.Trigger != "" || body.messagesOnly()) {
		chooseUIMessageStream(r)
	}
	if body.ID == "" && body.ConversationID == "" && !body.Stateless && wantsUIMessageStream(r) {
		body.ID = body.Messages.firstID
	}
}
