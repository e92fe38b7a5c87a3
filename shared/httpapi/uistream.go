package httpapi

import (
	"cmp"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/google/uuid"

	"regintel/shared/chat"
	"regintel/shared/conversation"
	"regintel/shared/llm"
)

// UIMessageStreamProtocol selects the Vercel AI SDK UI message stream (v1)
// instead of the default SSE events, so `useChat` works unchanged:
// POST /chat?protocol=ui-message-stream (or header X-Stream-Protocol).
const UIMessageStreamProtocol = "ui-message-stream"

func wantsUIMessageStream(r *http.Request) bool {
	return r.URL.Query().Get("protocol") == UIMessageStreamProtocol || r.Header.Get("X-Stream-Protocol") == UIMessageStreamProtocol
}

// protocolAsked reports whether the request names a protocol at all.
func protocolAsked(r *http.Request) bool {
	return r.URL.Query().Has("protocol") || r.Header.Get(HeaderStreamProtocol) != ""
}

// chooseUIMessageStream makes the rest of the request's handling answer
// with the UI message stream, when the client named no protocol and is
// the AI SDK: its body carries a trigger, its reconnect finds a turn
// started with it.
func chooseUIMessageStream(r *http.Request) {
	r.Header.Set(HeaderStreamProtocol, UIMessageStreamProtocol)
}

// uiStreamSink maps the chat events onto UI message stream chunks:
// start → start (the conversation and turn as messageMetadata); message →
// text-start/text-delta/text-end; warning → a transient data-warning;
// disclaimer and context_request → data-disclaimer and
// data-context-request parts; error → error (errorText "code: message");
// metadata → a source-url chunk per citation with a URL, and the finish
// chunk's messageMetadata (once, not also as a part); done → finish with its finishReason, then [DONE].
type uiStreamSink struct {
	mu       sync.Mutex
	sse      *sseWriter
	skip     int // chunks not to send: a reconnect's startIndex
	started  bool
	textOpen bool
	meta     any
}

// newUIStreamSink marks the response as a UI message stream; the stream
// starts with the first event.
func newUIStreamSink(w http.ResponseWriter, sse *sseWriter) *uiStreamSink {
	w.Header().Set(HeaderUIMessageStream, "v1")
	return &uiStreamSink{sse: sse}
}

const uiTextID = "text-1"

// uiTextDelta is the text-delta chunk, the most frequent one.
type uiTextDelta struct {
	Type  string `json:"type"`
	ID    string `json:"id"`
	Delta string `json:"delta"`
}

// finishReasons maps a turn's done status onto the AI SDK's finish
// reasons. The SDK accepts no "context-required", so a turn that asks for
// context finishes with "other" and its data-context-request part.
var finishReasons = map[string]string{
	"ok":               "stop",
	"error":            "error",
	"context_required": "other",
	"interrupted":      "interrupted",
	"length":           "length",
}

// write holds one chunk as a data-only frame until the engine flushes or
// the stream starts or ends.
func (s *uiStreamSink) write(chunk any) error {
	if s.skip > 0 {
		s.skip--
		return nil
	}
	raw, err := json.Marshal(chunk)
	if err != nil {
		return err
	}
	return s.sse.hold("", "", raw)
}

func (s *uiStreamSink) Event(name string, data any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		s.started = true
		start := map[string]any{"type": "start", "messageId": uiMessageID(name, data)}
		if name == chat.EventStart {
			start["messageMetadata"] = data
		}
		// The start goes out at once: it names the conversation.
		if err := s.write(start); err != nil {
			return err
		}
		if err := s.sse.flush(); err != nil || name == chat.EventStart {
			return err
		}
	}
	switch name {
	case chat.EventMessage:
		if !s.textOpen {
			s.textOpen = true
			if err := s.write(map[string]string{"type": "text-start", "id": uiTextID}); err != nil {
				return err
			}
		}
		delta := eventData[chat.TextDelta](data)
		return s.write(uiTextDelta{Type: "text-delta", ID: uiTextID, Delta: delta.Text})
	case chat.EventError:
		// The SDK's error chunk has errorText only, so the code leads it.
		msg := eventData[map[string]string](data)
		text := msg["message"]
		if msg["code"] != "" {
			text = msg["code"] + ": " + text
		}
		return s.write(map[string]string{"type": "error", "errorText": text})
	case chat.EventMetadata:
		s.meta = data
		return s.sources(eventData[chat.Metadata](data).Citations)
	case chat.EventWarning:
		// Shown while the answer streams; nothing to keep in the message.
		return s.write(map[string]any{"type": "data-warning", "data": data, "transient": true})
	case chat.EventContextRequest:
		return s.write(map[string]any{"type": "data-context-request", "id": contextRequestID(data), "data": data})
	case chat.EventDone:
		done := eventData[map[string]string](data)
		if done["reason"] == chat.DoneReasonLength {
			// Cut at its length bound: the SDK's own reason for that.
			return s.finish("length")
		}
		return s.finish(done["status"])
	default:
		// disclaimer: a data part kept with the answer.
		return s.write(map[string]any{"type": "data-" + strings.ReplaceAll(name, "_", "-"), "data": data})
	}
}

// uiSourceURL is the SDK's source-url chunk: a stock chat UI lists it
// with the message's sources.
type uiSourceURL struct {
	Type     string `json:"type"`
	SourceID string `json:"sourceId"`
	URL      string `json:"url"`
	Title    string `json:"title,omitempty"`
}

// sources sends one source-url chunk per cited fact with a source; the
// metadata event that carries the citations comes before done, so they
// precede the finish chunk. The fact's node id is the source id (unique
// within the answer).
func (s *uiStreamSink) sources(citations []conversation.Citation) error {
	for i, c := range citations {
		if c.URL == "" {
			continue
		}
		id := cmp.Or(c.NodeID, "source-"+strconv.Itoa(i+1))
		if err := s.write(uiSourceURL{Type: "source-url", SourceID: id, URL: c.URL, Title: c.Label}); err != nil {
			return err
		}
	}
	return nil
}

// Format implements chat.RecordedSink.
func (*uiStreamSink) Format() string { return UIMessageStreamProtocol }

// Recorded implements chat.RecordedSink: a recorded event is mapped as a
// live one is; the UI message stream has no event ids.
func (s *uiStreamSink) Recorded(ev conversation.StreamEvent) error {
	return s.Event(ev.Name, ev.Data)
}

// eventData is an event's data as T: as the engine sent it, or decoded
// from its recorded JSON.
func eventData[T any](data any) T {
	if v, ok := data.(T); ok {
		return v
	}
	var v T
	if raw, ok := data.(json.RawMessage); ok {
		_ = json.Unmarshal(raw, &v)
	}
	return v
}

// uiMessageNamespace derives a turn's UI message id.
var uiMessageNamespace = uuid.MustParse("6f1d6a52-1f0e-4c55-9a43-3c0d2b8e7a10")

// uiMessageID is the assistant message's id: the same for every replay of
// a stored turn (derived from its conversation and number), so a resumed
// stream continues the message the client knows; random otherwise.
func uiMessageID(name string, data any) string {
	if name == chat.EventStart {
		if st := eventData[chat.Start](data); st.ConversationID != nil && st.TurnNumber != nil {
			return TurnMessageID(*st.ConversationID, *st.TurnNumber)
		}
	}
	return uuid.NewString()
}

// TurnMessageID is the UI message id of a stored turn's answer.
func TurnMessageID(conversationID string, turnNumber int) string {
	return uuid.NewSHA1(uiMessageNamespace, []byte(conversationID+"/"+strconv.Itoa(turnNumber))).String()
}

// Flush implements chat.HoldingSink: the held chunks go out.
func (s *uiStreamSink) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sse.flush()
}

// contextRequestID is the request's id, so a later chunk for the same
// request replaces the part instead of adding one.
func contextRequestID(data any) string {
	raw, _ := json.Marshal(data)
	var ev struct {
		RequestID string `json:"requestId"`
	}
	_ = json.Unmarshal(raw, &ev)
	return ev.RequestID
}

func (s *uiStreamSink) finish(status string) error {
	if s.textOpen {
		s.textOpen = false
		if err := s.write(map[string]string{"type": "text-end", "id": uiTextID}); err != nil {
			return err
		}
	}
	finish := map[string]any{"type": "finish", "finishReason": cmp.Or(finishReasons[status], "other")}
	if s.meta != nil {
		finish["messageMetadata"] = s.meta
	}
	if err := s.write(finish); err != nil {
		return err
	}
	return s.sse.event("", "", []byte("[DONE]"))
}

// chatMessages accepts history messages as {role, content} or as AI SDK
// UIMessages {id, role, parts: [{type: "text", text}]}. It keeps the first
// message's id: a client that sends no chat id (WorkflowChatTransport with
// only its URL) still sends the same first message with every turn.
type chatMessages struct {
	list    []llm.Message
	firstID string
}

// historyMessage is the JSON form of one history message.
type historyMessage struct {
	ID      string   `json:"id"`
	Role    llm.Role `json:"role"`
	Content *string  `json:"content"`
	Parts   []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"parts"`
}

// JSONShape lets the strict decoder match the field names of the messages.
func (chatMessages) JSONShape() any { return []historyMessage{} }

func (m *chatMessages) UnmarshalJSON(b []byte) error {
	var raw []historyMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make([]llm.Message, 0, len(raw))
	for _, r := range raw {
		msg := llm.Message{Role: r.Role}
		if r.Content != nil {
			msg.Content = *r.Content
		} else {
			var parts []string
			for _, p := range r.Parts {
				if p.Type == "text" {
					parts = append(parts, p.Text)
				}
			}
			msg.Content = strings.Join(parts, "")
		}
		out = append(out, msg)
	}
	m.list = out
	if len(raw) > 0 {
		m.firstID = raw[0].ID
	}
	return nil
}

// fromUIMessages turns a body of messages and no message into a chat
// request. In a useChat body (no retry or context supply either) the
// question is the last user message with text (not only white space), so
// messages a client appends after it (an assistant's, a user's file with no
// text) are ignored. A retry asks the stored question again and a supply
// the deferred one: their copy of the history is ignored. The messages
// before the question are history only in stateless mode (the server owns
// the history of a stored conversation).
func fromUIMessages(body *chatBody) {
	msgs := body.Messages.list
	if body.messagesOnly() {
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == llm.RoleUser && strings.TrimSpace(msgs[i].Content) != "" {
				text := msgs[i].Content
				body.Message = &text
				body.Messages.list = msgs[:i]
				break
			}
		}
	}
	if !body.Stateless || body.Retry {
		body.Messages.list = nil
	}
}
