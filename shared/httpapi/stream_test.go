package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"regintel/shared/llm/llmtest"
)

// uiChunks returns the data payloads of a UI message stream, in order.
func uiChunks(t *testing.T, body string) []string {
	t.Helper()
	var out []string
	for _, frame := range strings.Split(body, "\n\n") {
		if frame == "" || strings.HasPrefix(frame, ":") {
			continue
		}
		if !strings.HasPrefix(frame, "data: ") || strings.Contains(frame, "\n") {
			t.Fatalf("frame is not one data line: %q", frame)
		}
		out = append(out, strings.TrimPrefix(frame, "data: "))
	}
	return out
}

// uiChunk is one UI message stream chunk, with the fields the tests read.
type uiChunk struct {
	Type            string          `json:"type"`
	ID              string          `json:"id"`
	MessageID       string          `json:"messageId"`
	Delta           string          `json:"delta"`
	Data            json.RawMessage `json:"data"`
	Transient       bool            `json:"transient"`
	FinishReason    string          `json:"finishReason"`
	ErrorText       string          `json:"errorText"`
	SourceID        string          `json:"sourceId"`
	URL             string          `json:"url"`
	Title           string          `json:"title"`
	MessageMetadata *struct {
		ConversationID  *string  `json:"conversationId"`
		TurnNumber      *int     `json:"turnNumber"`
		ReferencedNodes []string `json:"referencedNodes"`
	} `json:"messageMetadata"`
}

// uiStream parses a UI message stream that ends with [DONE].
func uiStream(t *testing.T, body string) []uiChunk {
	t.Helper()
	raw := uiChunks(t, body)
	if len(raw) < 3 || raw[len(raw)-1] != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]: %v", raw)
	}
	out := make([]uiChunk, 0, len(raw)-1)
	for _, c := range raw[:len(raw)-1] {
		var chunk uiChunk
		if err := json.Unmarshal([]byte(c), &chunk); err != nil {
			t.Fatalf("chunk %q: %v", c, err)
		}
		out = append(out, chunk)
	}
	return out
}

func chunkTypes(chunks []uiChunk) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i] = c.Type
	}
	return out
}

func TestUIMessageStreamAnswersUseChat(t *testing.T) {
	for name, route := range map[string]struct {
		path    string
		headers map[string]string
	}{
		"query":  {"/chat?protocol=ui-message-stream", nil},
		"header": {"/chat", map[string]string{"X-Stream-Protocol": "ui-message-stream"}},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			e.llm.Enqueue(llmtest.TextScript("VAT is 23% in Ireland."))
			// useChat's body: UIMessages with parts.
			body := `{"id":"chat-1","messages":[{"id":"m1","role":"user","parts":[{"type":"text","text":"What is VAT?"}]}]}`
			resp := e.post(route.path, "application/json", body, route.headers)
			if resp.Status != 200 || resp.Header.Get("X-Vercel-AI-UI-Message-Stream") != "v1" ||
				!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				t.Fatalf("%d %v %s", resp.Status, resp.Header, resp.Body)
			}
			if got := e.llm.Requests()[0].LastUserMessage(); got != "What is VAT?" {
				t.Fatalf("model asked %q", got)
			}
			chunks := uiStream(t, resp.Body)
			types := chunkTypes(chunks)
			var text strings.Builder
			for _, c := range chunks {
				if c.Type == "text-delta" {
					text.WriteString(c.Delta)
				}
			}
			if types[0] != "start" || types[1] != "text-start" || types[len(types)-1] != "finish" || types[len(types)-2] != "text-end" {
				t.Fatalf("chunk types %v", types)
			}
			if !slices.Contains(types, "data-disclaimer") {
				t.Errorf("no data-disclaimer chunk: %v", types)
			}
			// Metadata travels once, as messageMetadata.
			if slices.Contains(types, "data-metadata") {
				t.Errorf("metadata sent as a data part too: %v", types)
			}
			if text.String() != "VAT is 23% in Ireland." {
				t.Errorf("text = %q", text.String())
			}
			start, finish := chunks[0], chunks[len(chunks)-1]
			id := resp.Header.Get("X-Conversation-Id")
			if start.MessageMetadata == nil || start.MessageMetadata.ConversationID == nil || *start.MessageMetadata.ConversationID != id ||
				start.MessageMetadata.TurnNumber == nil || *start.MessageMetadata.TurnNumber != 1 {
				t.Errorf("start chunk does not name conversation %q turn 1: %+v", id, start.MessageMetadata)
			}
			if finish.FinishReason != "stop" || finish.MessageMetadata == nil || finish.MessageMetadata.ConversationID == nil ||
				*finish.MessageMetadata.ConversationID != id || finish.MessageMetadata.ReferencedNodes == nil {
				t.Errorf("finish = %+v, want finishReason stop and the full metadata", finish)
			}
		})
	}
}

// A model that goes quiet mid-answer does not leave the stream silent: a
// keepalive comment keeps proxies from closing it, and the answer is whole.
// (Under store redaction an unfinished sentence waits for the words after
// it however long the pause, so the first piece ends a sentence.)
func TestSilentModelGetsKeepaliveComments(t *testing.T) {
	for _, protocol := range []string{"", "ui-message-stream"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			e := newEnv(t, envOptions{keepAlive: 20 * time.Millisecond})
			e.llm.Enqueue(llmtest.Script{Steps: llmtest.Steps(llmtest.Text("Hello there. "), llmtest.Pause(400*time.Millisecond), llmtest.Text("world"))})
			resp := e.chat(map[string]any{"message": "hi"}, map[string]string{"X-Stream-Protocol": protocol})
			if resp.Status != 200 {
				t.Fatalf("%d %s", resp.Status, resp.Body)
			}
			// A slow machine may also send one before "Hello"; the one that
			// matters comes between the two deltas.
			_, afterHello, _ := strings.Cut(resp.Body, "Hello")
			pause, _, found := strings.Cut(afterHello, "world")
			if !found || !strings.Contains(pause, "\n\n: keepalive\n\n") {
				t.Fatalf("no keepalive comment during the pause:\n%s", resp.Body)
			}
			if protocol == "" && resp.text() != "Hello there. world" {
				t.Fatalf("text = %q", resp.text())
			}
		})
	}
}

// Answer deltas are held only while more are already waiting, or (under
// store redaction) while the words after could make them part of personal
// data: a finished sentence the model sent before it paused reaches the
// client during the pause.
func TestDeltaReachesClientWhileModelPauses(t *testing.T) {
	for _, protocol := range []string{"", "ui-message-stream"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			e.llm.Enqueue(llmtest.Script{Steps: llmtest.Steps(llmtest.Text("Hello there. "), llmtest.Pause(time.Second), llmtest.Text("world"))})
			req, _ := http.NewRequest(http.MethodPost, e.server.URL+"/chat", strings.NewReader(`{"message":"hi"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Stream-Protocol", protocol)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var seen strings.Builder
			buf := make([]byte, 4096)
			for !strings.Contains(seen.String(), "Hello") {
				n, err := resp.Body.Read(buf)
				seen.Write(buf[:n])
				if err != nil {
					t.Fatalf("stream ended before the first delta: %v\n%s", err, seen.String())
				}
			}
			if strings.Contains(seen.String(), "world") {
				t.Fatalf("the first delta was held until the model went on:\n%s", seen.String())
			}
			rest, _ := io.ReadAll(resp.Body)
			if !strings.Contains(string(rest), "world") {
				t.Fatalf("the second delta never came:\n%s", rest)
			}
		})
	}
}
