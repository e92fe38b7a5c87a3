package httpapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"regintel/shared/chat"
	"regintel/shared/llm"
)

// decodeChatBody runs the chat route's decoder (strict decoding, then the
// useChat mapping when ui) on raw and returns the status it answers.
func decodeChatBody(raw []byte, ui bool) (chatBody, int) {
	a := &API{bodyTimeout: DefaultBodyReadTimeout, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	target := "/chat"
	if ui {
		target += "?protocol=" + UIMessageStreamProtocol
	}
	r := httptest.NewRequest(http.MethodPost, target, bytes.NewReader(raw))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	var body chatBody
	if err := a.decodeJSON(w, r, &body); err != nil {
		a.fail(w, r, "chat", err)
		return body, w.Code
	}
	if wantsUIMessageStream(r) {
		fromUIMessages(&body)
	}
	return body, http.StatusOK
}

// textOf lists every text a decoded chat body carries on to the engine.
func textOf(b chatBody) []string {
	out := []string{b.ConversationID}
	if b.Message != nil {
		out = append(out, *b.Message)
	}
	if b.Profile != nil {
		out = append(out, b.Profile.PersonaType)
		out = append(out, b.Profile.Jurisdictions...)
	}
	for _, m := range b.Messages.list {
		out = append(out, string(m.Role), m.Content)
	}
	if b.ContextSupply != nil {
		out = append(out, b.ContextSupply.RequestID)
		for _, it := range b.ContextSupply.Items {
			out = append(out, it.Key, it.Kind, it.Content)
		}
	}
	return out
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool {
		return r != '\t' && r != '\n' && r != '\r' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f))
	})
}

// checkDecoded is the decoders' property: a body is either refused with a
// 400 JSON error, or everything it carries is free of control characters.
func checkDecoded(t *testing.T, raw []byte, body chatBody, status int) {
	t.Helper()
	if status != http.StatusOK {
		if status != http.StatusBadRequest {
			t.Fatalf("%q answered %d", raw, status)
		}
		return
	}
	for _, s := range textOf(body) {
		if hasControl(s) {
			t.Fatalf("%q passed a control character on: %q", raw, s)
		}
	}
}

// FuzzChatRequestDecoder: the POST /chat body decoder never panics and
// passes no control character on (seeds: testdata/fuzz/FuzzChatRequestDecoder).
func FuzzChatRequestDecoder(f *testing.F) {
	f.Add([]byte(`{"message":"What is VAT?","profile":{"personaType":"SME","jurisdictions":["IE"]}}`))
	f.Add([]byte(`{"message":"hi","stateless":true,"messages":[{"role":"user","content":"a"}]}`))
	f.Add([]byte(`{"conversationId":"x","contextSupply":{"requestId":"r","items":[{"key":"p60","content":"c"}]},"forceRun":true}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		body, status := decodeChatBody(raw, false)
		checkDecoded(t, raw, body, status)
	})
}

// FuzzUseChatBodyDecoder: the same for useChat's body; when a question is
// taken from the messages it is the text of the last user message that has
// any (not only white space).
func FuzzUseChatBodyDecoder(f *testing.F) {
	f.Add([]byte(`{"id":"c1","messages":[{"role":"user","parts":[{"type":"text","text":"What is VAT?"}]}],"trigger":"submit-message"}`))
	f.Add([]byte(`{"stateless":true,"messages":[{"role":"user","parts":[{"type":"text","text":"a"}]},{"role":"assistant","parts":[{"type":"text","text":"b"}]},{"role":"user","parts":[{"type":"text","text":"c"},{"type":"text","text":"d"}]}]}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","parts":[{"type":"file"},{"type":"text","text":" "}]}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		body, status := decodeChatBody(raw, true)
		checkDecoded(t, raw, body, status)
		if status != http.StatusOK || body.Message == nil {
			return
		}
		var sent struct {
			Message  *string
			Messages []historyMessage
		}
		if err := json.Unmarshal(raw, &sent); err != nil {
			t.Fatalf("accepted %q: %v", raw, err)
		}
		if sent.Message != nil {
			return
		}
		want, found := "", false
		for i := len(sent.Messages) - 1; i >= 0 && !found; i-- {
			m := sent.Messages[i]
			var parts []string
			for _, p := range m.Parts {
				if p.Type == "text" {
					parts = append(parts, p.Text)
				}
			}
			want = strings.Join(parts, "")
			if m.Content != nil {
				want = *m.Content
			}
			found = m.Role == llm.RoleUser && strings.TrimSpace(want) != ""
		}
		if !found || *body.Message != want {
			t.Fatalf("%q: question %q, want the last user message with text %q", raw, *body.Message, want)
		}
	})
}

// frame is one decoded SSE frame.
type frame struct{ id, event, data string }

// readFrames decodes an SSE body the way EventSource does.
func readFrames(t *testing.T, body string) []frame {
	t.Helper()
	var out []frame
	var cur frame
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur != (frame{}) {
				out = append(out, cur)
			}
			cur = frame{}
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "id: "):
			cur.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			cur.event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if cur.data != "" {
				t.Fatalf("two data lines in one frame: %q", body)
			}
			cur.data = strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("stray line %q in %q", line, body)
		}
	}
	return out
}

var fuzzEventNames = []string{chat.EventMessage, chat.EventWarning, chat.EventDisclaimer, chat.EventMetadata, chat.EventError, "context_request"}

// fuzzEvents turns fuzz input into a sequence of chat events: each text is
// one event, its kind chosen by the matching byte of kinds.
func fuzzEvents(kinds []byte, texts []string) (names []string, data []any) {
	for i, text := range texts {
		name := fuzzEventNames[int(kinds[i%len(kinds)])%len(fuzzEventNames)]
		var d any
		switch name {
		case chat.EventMessage:
			d = chat.TextDelta{Text: text}
		case chat.EventError:
			d = map[string]string{"message": text}
		default:
			d = map[string]any{"text": text, "items": []string{text}}
		}
		names, data = append(names, name), append(data, d)
	}
	return names, data
}

func splitTexts(s string) []string { return strings.Split(s, "\x1f") }

// FuzzSSEEncoder: every chat event written through the SSE writer decodes
// back to the same name and data, whatever the text holds.
func FuzzSSEEncoder(f *testing.F) {
	f.Add([]byte{0, 1, 3}, "VAT is 23%\x1f\nline\r\nbreak\x1fdata: forged\n\nevent: done")
	f.Add([]byte{4}, "\u2028\u0000</script>")
	f.Fuzz(func(t *testing.T, kinds []byte, joined string) {
		if len(kinds) == 0 {
			return
		}
		names, data := fuzzEvents(kinds, splitTexts(joined))
		w := httptest.NewRecorder()
		sink := chatSink{sse: newSSEWriter(w)}
		for i := range names {
			if err := sink.Event(names[i], data[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := sink.Flush(); err != nil { // as the engine does before it waits
			t.Fatal(err)
		}
		frames := readFrames(t, w.Body.String())
		if len(frames) != len(names) {
			t.Fatalf("%d events, %d frames: %q", len(names), len(frames), w.Body.String())
		}
		for i, fr := range frames {
			want, _ := json.Marshal(data[i])
			if fr.event != names[i] || !jsonEqual(fr.data, string(want)) {
				t.Fatalf("frame %d = %+v, want %s %s", i, fr, names[i], want)
			}
		}
	})
}

// FuzzUIStreamEncoder: the UI message stream of a turn decodes back to the
// same text (the deltas in order), the same data parts and one finish.
func FuzzUIStreamEncoder(f *testing.F) {
	f.Add([]byte{0, 0, 1, 3}, "VAT \x1fis 23%\x1fcheck\x1f{\"a\":1}")
	f.Add([]byte{2, 0, 5}, "\n\ndata: [DONE]\n\n\x1f\u0000")
	f.Fuzz(func(t *testing.T, kinds []byte, joined string) {
		if len(kinds) == 0 {
			return
		}
		names, data := fuzzEvents(kinds, splitTexts(joined))
		w := httptest.NewRecorder()
		sink := newUIStreamSink(w, newSSEWriter(w))
		var wantText strings.Builder
		for i := range names {
			if names[i] == chat.EventMessage {
				// JSON carries text as valid UTF-8: invalid bytes arrive as U+FFFD.
				wantText.WriteString(jsonRoundTrip(data[i].(chat.TextDelta).Text))
			}
			if err := sink.Event(names[i], data[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := sink.Event(chat.EventDone, map[string]string{"status": "ok"}); err != nil {
			t.Fatal(err)
		}
		frames := readFrames(t, w.Body.String())
		if len(frames) < 3 || frames[len(frames)-1].data != "[DONE]" {
			t.Fatalf("stream does not end with [DONE]: %q", w.Body.String())
		}
		var text strings.Builder
		var types []string
		for _, fr := range frames[:len(frames)-1] {
			var chunk struct{ Type, Delta, ErrorText string }
			if err := json.Unmarshal([]byte(fr.data), &chunk); err != nil {
				t.Fatalf("chunk %q: %v", fr.data, err)
			}
			types = append(types, chunk.Type)
			if chunk.Type == "text-delta" {
				text.WriteString(chunk.Delta)
			}
		}
		if text.String() != wantText.String() {
			t.Fatalf("text %q, want %q", text.String(), wantText.String())
		}
		if types[0] != "start" || types[len(types)-1] != "finish" || strings.Count(strings.Join(types, " "), "finish") != 1 {
			t.Fatalf("chunk types %v", types)
		}
	})
}

func jsonRoundTrip(s string) string {
	raw, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(raw, &out)
	return out
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	ra, _ := json.Marshal(x)
	rb, _ := json.Marshal(y)
	return string(ra) == string(rb)
}
