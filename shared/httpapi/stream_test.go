package httpapi_test

import (
	"encoding/json"
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
			chunks := uiChunks(t, resp.Body)
			if len(chunks) < 5 || chunks[len(chunks)-1] != "[DONE]" {
				t.Fatalf("stream does not end with [DONE]: %v", chunks)
			}
			var types []string
			var text strings.Builder
			var finish struct {
				MessageMetadata struct{ ConversationID *string } `json:"messageMetadata"`
			}
			for _, c := range chunks[:len(chunks)-1] {
				var chunk struct{ Type, Delta string }
				if err := json.Unmarshal([]byte(c), &chunk); err != nil {
					t.Fatalf("chunk %q: %v", c, err)
				}
				types = append(types, chunk.Type)
				if chunk.Type == "text-delta" {
					text.WriteString(chunk.Delta)
				}
				if chunk.Type == "finish" {
					_ = json.Unmarshal([]byte(c), &finish)
				}
			}
			if types[0] != "start" || types[1] != "text-start" || types[len(types)-1] != "finish" || types[len(types)-2] != "text-end" {
				t.Fatalf("chunk types %v", types)
			}
			for _, want := range []string{"data-disclaimer", "data-metadata"} {
				if !strings.Contains(strings.Join(types, " "), want) {
					t.Errorf("no %s chunk: %v", want, types)
				}
			}
			if text.String() != "VAT is 23% in Ireland." {
				t.Errorf("text = %q", text.String())
			}
			if finish.MessageMetadata.ConversationID == nil {
				t.Errorf("finish carries no conversation id")
			}
		})
	}
}

// A model that goes quiet mid-answer does not leave the stream silent: a
// keepalive comment keeps proxies from closing it, and the answer is whole.
func TestSilentModelGetsKeepaliveComments(t *testing.T) {
	for _, protocol := range []string{"", "ui-message-stream"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			e := newEnv(t, envOptions{keepAlive: 20 * time.Millisecond})
			e.llm.Enqueue(llmtest.Script{Steps: llmtest.Steps(llmtest.Text("Hello"), llmtest.Pause(150*time.Millisecond), llmtest.Text(" world"))})
			resp := e.chat(map[string]any{"message": "hi"}, map[string]string{"X-Stream-Protocol": protocol})
			if resp.Status != 200 {
				t.Fatalf("%d %s", resp.Status, resp.Body)
			}
			before, after, found := strings.Cut(resp.Body, "\n\n: keepalive\n\n")
			if !found || !strings.Contains(before, "Hello") || !strings.Contains(after, " world") {
				t.Fatalf("no keepalive comment during the pause:\n%s", resp.Body)
			}
			if protocol == "" && resp.text() != "Hello world" {
				t.Fatalf("text = %q", resp.text())
			}
		})
	}
}
