package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"regintel/shared/llm"
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

// errorRecorder is a testing.TB that keeps Errorf messages instead of
// failing, to see what the fake reports.
type errorRecorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *errorRecorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestTextAfterToolCallIsAScriptError(t *testing.T) {
	recorder := &errorRecorder{TB: t}
	srv := NewServer(recorder)
	srv.Enqueue(Script{Steps: Steps(ToolCall("capture_concepts", `{}`, 1), Text("then text"))})
	resp, body := post(t, srv, "responses", `{"model":"m","stream":true,"input":"q"}`)
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(body, "text after a tool call") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if len(recorder.errors) != 1 || !strings.Contains(recorder.errors[0], "text after a tool call") {
		t.Fatalf("reported %q, want one script error", recorder.errors)
	}
	for _, ok := range []Script{
		{Steps: Steps(Words("text then "), ToolCall("a", `{}`, 1), ToolCall("b", `{}`, 1))},
		{Steps: Steps(ToolCall("a", `{}`, 1), Pause(0), Disconnect())},
		HTTPError(500, "down"),
	} {
		if err := ok.Validate(); err != nil {
			t.Fatalf("valid script rejected: %v", err)
		}
	}
}

func TestToolCallEndsTheResponse(t *testing.T) {
	srv := NewServer(t)
	srv.Enqueue(Script{Steps: Steps(ToolCall("capture_concepts", `{}`, 1).WithCallID("call_1"))})
	_, body := post(t, srv, "chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"q"}]}`)
	frames := strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n")
	if !strings.Contains(body, `"id":"call_1","type":"function"`) || !strings.Contains(frames[len(frames)-2], `"finish_reason":"tool_calls"`) {
		t.Fatalf("chat stream does not end on the call:\n%s", body)
	}
}

func TestToolLoopValidation(t *testing.T) {
	cases := []struct {
		name, path, body string
		status           int
		errorBody        string
	}{
		{"responses: output without call", "responses",
			`{"model":"m","stream":true,"input":[{"role":"user","content":"q"},{"type":"function_call_output","call_id":"call_9","output":"x"}]}`,
			400, `{"error":{"message":"No tool call found for function call output with call_id call_9.","type":"invalid_request_error","param":"input","code":null}}`},
		{"responses: call without output", "responses",
			`{"model":"m","stream":true,"input":[{"role":"user","content":"q"},{"type":"function_call","call_id":"call_1","name":"f","arguments":"{}"}]}`,
			400, `{"error":{"message":"No tool output found for function call call_1.","type":"invalid_request_error","param":"input","code":null}}`},
		{"responses: output without call_id", "responses",
			`{"model":"m","stream":true,"input":[{"role":"user","content":"q"},{"type":"function_call_output","output":"x"}]}`,
			400, `{"error":{"message":"Missing required parameter: 'input[1].call_id'.","type":"invalid_request_error","param":"input[1].call_id","code":"missing_required_parameter"}}`},
		{"chat: tool message without tool_calls", "chat/completions",
			`{"model":"m","stream":true,"messages":[{"role":"user","content":"q"},{"role":"tool","tool_call_id":"call_9","content":"x"}]}`,
			400, `{"error":{"message":"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.","type":"invalid_request_error","param":"messages.[1].role","code":null}}`},
		{"chat: tool message after a user message", "chat/completions",
			`{"model":"m","stream":true,"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"x"},{"role":"user","content":"q"},{"role":"tool","tool_call_id":"call_1","content":"x"}]}`,
			400, `"param":"messages.[3].role"`},
		{"chat: call without tool message", "chat/completions",
			`{"model":"m","stream":true,"messages":[{"role":"user","content":"q"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"call_2","type":"function","function":{"name":"g","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_2","content":"x"}]}`,
			400, `{"error":{"message":"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1","type":"invalid_request_error","param":"messages.[1].role","code":null}}`},
		{"responses: valid loop", "responses",
			`{"model":"m","stream":true,"input":[{"role":"user","content":"q"},{"type":"function_call","call_id":"call_1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"call_1","output":"x"}]}`,
			200, "event: response.completed"},
		{"chat: valid loop", "chat/completions",
			`{"model":"m","stream":true,"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"Hm.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"x"}]}`,
			200, `"finish_reason":"stop"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := NewServer(t)
			resp, body := post(t, srv, tc.path, tc.body)
			if resp.StatusCode != tc.status || !strings.Contains(body, tc.errorBody) {
				t.Fatalf("%d %s\nwant %d containing %s", resp.StatusCode, body, tc.status, tc.errorBody)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("recorded %d requests, want 1", n)
			}
		})
	}
}

func TestRecordedToolLoop(t *testing.T) {
	srv := NewServer(t)
	post(t, srv, "responses", `{"model":"m","stream":true,"input":[{"role":"user","content":"q"},`+
		`{"type":"message","role":"assistant","content":"Let me check."},{"type":"function_call","call_id":"call_1","name":"f","arguments":"{\"a\":1}"},`+
		`{"type":"function_call","call_id":"call_2","name":"g","arguments":"{}"},`+
		`{"type":"function_call_output","call_id":"call_1","output":"one"},{"type":"function_call_output","call_id":"call_2","output":"two"}]}`)
	req, _ := srv.LastRequest()
	if len(req.Messages) != 4 {
		t.Fatalf("messages = %+v", req.Messages)
	}
	assistant := req.Messages[1]
	if assistant.Role != llm.RoleAssistant || assistant.Content != "Let me check." || len(assistant.ToolCalls) != 2 ||
		assistant.ToolCalls[0].ID != "call_1" || string(assistant.ToolCalls[0].ArgsJSON) != `{"a":1}` || assistant.ToolCalls[1].Name != "g" {
		t.Fatalf("assistant turn = %+v", assistant)
	}
	outputs := req.ToolOutputsAfterLastUser()
	if len(outputs) != 2 || outputs[0].ToolCallID != "call_1" || outputs[0].Content != "one" || outputs[1].Content != "two" {
		t.Fatalf("tool outputs = %+v", outputs)
	}
}

func TestToolsRefused(t *testing.T) {
	srv := NewServer(t)
	srv.SetToolsRefused(true)
	srv.Enqueue(TextScript("Answer only."))
	resp, body := post(t, srv, "chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"q"}],"tools":[{"type":"function","function":{"name":"capture_concepts","parameters":{"type":"object"}}}]}`)
	want := `{"error":{"message":"Unsupported parameter: 'tools' is not supported with this model.","type":"invalid_request_error","param":"tools","code":"unsupported_parameter"}}`
	if resp.StatusCode != http.StatusBadRequest || strings.TrimSpace(body) != want {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	resp, body = post(t, srv, "chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"q"}]}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"content":"Answer `) {
		t.Fatalf("request without tools: %d %s", resp.StatusCode, body)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("recorded %d requests, want 2", n)
	}
}
