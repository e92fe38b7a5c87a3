package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, srv *Server, path, body string) (*http.Response, string) {
	t.Helper()
	resp, err := srv.Client().Post(srv.BaseURL()+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, string(raw)
}

func TestResponsesWireFormat(t *testing.T) {
	srv := NewServer(t)
	srv.Enqueue(Script{Steps: Steps(Text("Hi"), ToolCall("capture_concepts", `{"concepts":[]}`, 2))})
	resp, body := post(t, srv, "responses", `{"model":"m","stream":true,"instructions":"sys","input":[{"role":"user","content":"q"}],"tools":[{"type":"function","name":"capture_concepts","parameters":{"type":"object"}}]}`)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	var names []string
	for i, frame := range strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n") {
		lines := strings.Split(frame, "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "event: ") || !strings.HasPrefix(lines[1], "data: ") {
			t.Fatalf("frame %d is not `event:`/`data:`: %q", i, frame)
		}
		var data struct {
			Type string `json:"type"`
			Seq  *int   `json:"sequence_number"`
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(lines[1], "data: ")), &data); err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(lines[0], "event: ")
		if data.Type != name || data.Seq == nil || *data.Seq != i {
			t.Fatalf("frame %d: event %q type %q seq %v", i, name, data.Type, data.Seq)
		}
		names = append(names, name)
	}
	want := "response.created response.in_progress response.output_item.added response.content_part.added response.output_text.delta response.output_text.done response.content_part.done response.output_item.done response.output_item.added response.function_call_arguments.delta response.function_call_arguments.delta response.function_call_arguments.done response.output_item.done response.completed"
	if strings.Join(names, " ") != want {
		t.Fatalf("events:\n%s\nwant\n%s", strings.Join(names, " "), want)
	}
	req, _ := srv.LastRequest()
	if req.System != "sys" || req.LastUserMessage() != "q" || strings.Join(req.ToolNames(), ",") != "capture_concepts" {
		t.Fatalf("recorded %+v", req)
	}
}

func TestChatWireFormat(t *testing.T) {
	srv := NewServer(t)
	srv.Enqueue(Script{Steps: Steps(Text("Hi"), ToolCall("capture_concepts", `{}`, 1))})
	_, body := post(t, srv, "chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"sys"},{"role":"user","content":"q"}],"tools":[{"type":"function","function":{"name":"capture_concepts","parameters":{"type":"object"}}}]}`)
	frames := strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n")
	if frames[len(frames)-1] != "data: [DONE]" {
		t.Fatalf("last frame %q", frames[len(frames)-1])
	}
	for _, f := range frames {
		if !strings.HasPrefix(f, "data: ") || strings.Contains(f, "\n") {
			t.Fatalf("bad frame %q", f)
		}
	}
	if !strings.Contains(frames[len(frames)-2], `"choices":[],"usage":{"prompt_tokens"`) {
		t.Fatalf("usage frame missing: %q", frames[len(frames)-2])
	}
	req, _ := srv.LastRequest()
	if req.System != "sys" || len(req.Messages) != 1 || !req.IncludeUsage || req.ToolNames()[0] != "capture_concepts" {
		t.Fatalf("recorded %+v", req)
	}
}

func TestHTTPErrorAndUnknownPath(t *testing.T) {
	srv := NewServer(t)
	srv.Enqueue(HTTPError(http.StatusTooManyRequests, "slow down"))
	resp, body := post(t, srv, "responses", `{"model":"m","stream":true,"input":"q"}`)
	if resp.StatusCode != 429 || !strings.Contains(body, `"message":"slow down"`) || !strings.Contains(body, `"type":"rate_limit_error"`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if resp, _ := post(t, srv, "embeddings", `{}`); resp.StatusCode != 404 {
		t.Fatalf("unknown path answered %d", resp.StatusCode)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("recorded %d requests, want 1", n)
	}
}
