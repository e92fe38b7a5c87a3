package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/google/uuid"

	"regintel/shared/chat"
	"regintel/shared/llm"
)

// UIMessageStreamProtocol selects the Vercel AI SDK UI message stream (v1)
// instead of the default SSE events, so `useChat` works unchanged:
// POST /chat?protocol=ui-message-stream (or header X-Stream-Protocol).
const UIMessageStreamProtocol = "ui-message-stream"

func wantsUIMessageStream(r *http.Request) bool {
	return r.URL.Query().Get("protocol") == UIMessageStreamProtocol || r.Header.Get("X-Stream-Protocol") == UIMessageStreamProtocol
}

// uiStreamSink maps the chat events onto UI message stream chunks:
// message → text-start/text-delta/text-end; warning, disclaimer,
// context_request and metadata → data-* parts; error → error; done →
// finish (with the metadata as messageMetadata) and [DONE].
type uiStreamSink struct {
	mu       sync.Mutex
	sse      *sseWriter
	started  bool
	textOpen bool
	meta     any
}

// newUIStreamSink marks the response as a UI message stream; the stream
// starts with the first event.
func newUIStreamSink(w http.ResponseWriter, sse *sseWriter) *uiStreamSink {
	w.Header().Set("X-Vercel-AI-UI-Message-Stream", "v1")
	return &uiStreamSink{sse: sse}
}

const uiTextID = "text-1"

// write sends one chunk as a data-only frame.
func (s *uiStreamSink) write(chunk any) error {
	raw, err := json.Marshal(chunk)
	if err != nil {
		return err
	}
	return s.sse.event("", "", raw)
}

func (s *uiStreamSink) Event(name string, data any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		s.started = true
		if err := s.write(map[string]string{"type": "start", "messageId": uuid.NewString()}); err != nil {
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
		delta, _ := data.(map[string]string)
		return s.write(map[string]string{"type": "text-delta", "id": uiTextID, "delta": delta["text"]})
	case chat.EventError:
		msg, _ := data.(map[string]string)
		return s.write(map[string]string{"type": "error", "errorText": msg["message"]})
	case chat.EventMetadata:
		s.meta = data
		return s.write(map[string]any{"type": "data-metadata", "data": data})
	case chat.EventDone:
		return s.finish()
	default:
		// warning, disclaimer, context_request: custom data parts.
		return s.write(map[string]any{"type": "data-" + strings.ReplaceAll(name, "_", "-"), "data": data})
	}
}

func (s *uiStreamSink) finish() error {
	if s.textOpen {
		s.textOpen = false
		if err := s.write(map[string]string{"type": "text-end", "id": uiTextID}); err != nil {
			return err
		}
	}
	finish := map[string]any{"type": "finish"}
	if s.meta != nil {
		finish["messageMetadata"] = s.meta
	}
	if err := s.write(finish); err != nil {
		return err
	}
	return s.sse.event("", "", []byte("[DONE]"))
}

// chatMessages accepts history messages as {role, content} or as AI SDK
// UIMessages {role, parts: [{type: "text", text}]}.
type chatMessages []llm.Message

// historyMessage is the JSON form of one history message.
type historyMessage struct {
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
	*m = out
	return nil
}

// fromUIMessages turns a useChat body into a chat request: the last user
// message is the question; the rest is history only in stateless mode (the
// server owns the history of a stored conversation).
func fromUIMessages(body *chatBody) {
	if body.Message == nil && len(body.Messages) > 0 {
		last := body.Messages[len(body.Messages)-1]
		if last.Role == llm.RoleUser {
			text := last.Content
			body.Message = &text
			body.Messages = body.Messages[:len(body.Messages)-1]
		}
	}
	if !body.Stateless {
		body.Messages = nil
	}
}
