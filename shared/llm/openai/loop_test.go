package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"regintel/shared/llm"
	"regintel/shared/llm/llmtest"
	"regintel/shared/llm/openai"
)

// loopClient drives the tool loop the way an engine does: stream, run the
// calls, send the assistant turn and the outputs back, stream again.
type loopClient struct {
	t        *testing.T
	srv      *llmtest.Server
	provider llm.Provider
	req      llm.Request
}

func newLoopClient(t *testing.T, pc providerCase, scripts ...llmtest.Script) *loopClient {
	srv := llmtest.NewServer(t)
	srv.Enqueue(scripts...)
	return &loopClient{t: t, srv: srv, provider: pc.build(srv, openai.Config{APIKey: "sk-test"}), req: baseRequest()}
}

// call streams the current request; it returns the chunks and appends the
// model's turn plus one output per tool call ("output of <call id>") to the
// request, ready for the next call.
func (c *loopClient) call() []llm.Chunk {
	c.t.Helper()
	ch, err := c.provider.Stream(context.Background(), c.req)
	if err != nil {
		c.t.Fatal(err)
	}
	chunks := collect(c.t, ch)
	var text strings.Builder
	var calls []llm.ToolCall
	for _, chunk := range chunks {
		switch chunk.Type {
		case llm.ChunkText:
			text.WriteString(chunk.Delta)
		case llm.ChunkTool:
			calls = append(calls, chunk.ToolCall())
		case llm.ChunkError:
			c.t.Fatalf("error chunk: %v", chunk.Err)
		}
	}
	c.req.Messages = append(c.req.Messages, llm.Message{Role: llm.RoleAssistant, Content: text.String(), ToolCalls: calls})
	for _, call := range calls {
		c.req.Messages = append(c.req.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Content: "output of " + call.ID})
	}
	return chunks
}

// wireConversation renders what the endpoint received after the prompt's
// history, in the protocol's own terms, read from the raw request body.
func wireConversation(t *testing.T, req llmtest.RecordedRequest) string {
	t.Helper()
	var body struct {
		Input    []map[string]any `json:"input"`
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	var parts []string
	if req.Protocol == llmtest.ProtocolResponses {
		for _, item := range body.Input[3:] { // after the 3 history messages
			switch item["type"] {
			case "function_call":
				parts = append(parts, fmt.Sprintf("function_call(%v %v %v)", item["call_id"], item["name"], item["arguments"]))
			case "function_call_output":
				parts = append(parts, fmt.Sprintf("function_call_output(%v: %v)", item["call_id"], item["output"]))
			default:
				parts = append(parts, fmt.Sprintf("%v(%v: %v)", item["type"], item["role"], item["content"]))
			}
		}
		return strings.Join(parts, " ")
	}
	for _, msg := range body.Messages[4:] { // after the system message and the history
		switch msg["role"] {
		case "assistant":
			var calls []string
			for _, raw := range msg["tool_calls"].([]any) {
				call := raw.(map[string]any)
				fn := call["function"].(map[string]any)
				calls = append(calls, fmt.Sprintf("%v %v %v %v", call["id"], call["type"], fn["name"], fn["arguments"]))
			}
			parts = append(parts, fmt.Sprintf("assistant(%v)[%s]", msg["content"], strings.Join(calls, "; ")))
		case "tool":
			parts = append(parts, fmt.Sprintf("tool(%v: %v)", msg["tool_call_id"], msg["content"]))
		default:
			parts = append(parts, fmt.Sprintf("%v(%v)", msg["role"], msg["content"]))
		}
	}
	return strings.Join(parts, " ")
}

func callIDs(chunks []llm.Chunk) string {
	var ids []string
	for _, c := range toolChunks(chunks) {
		ids = append(ids, c.CallID)
	}
	return strings.Join(ids, ",")
}

func TestTextThenToolIsOneResponse(t *testing.T) {
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			c := newLoopClient(t, pc, llmtest.Script{Steps: llmtest.Steps(
				llmtest.Words("Noting VAT. "), llmtest.ToolCall("capture_concepts", `{"concepts":[]}`, 2).WithCallID("call_vat"))})
			chunks := c.call()
			if got, want := summary(chunks), "[text:Noting VAT. ][tool:capture_concepts][usage]"; got != want {
				t.Fatalf("chunks = %s, want %s", got, want)
			}
			if got := callIDs(chunks); got != "call_vat" {
				t.Fatalf("call ids = %q, want call_vat", got)
			}
			if n := len(c.srv.Requests()); n != 1 {
				t.Fatalf("server saw %d requests, want 1", n)
			}
		})
	}
}

func TestToolOnlyThenAnswerInSecondCall(t *testing.T) {
	want := map[llmtest.Protocol]string{
		llmtest.ProtocolResponses: `function_call(call_vat capture_concepts {"concepts":[]}) function_call_output(call_vat: output of call_vat)`,
		llmtest.ProtocolChat:      `assistant(<nil>)[call_vat function capture_concepts {"concepts":[]}] tool(call_vat: output of call_vat)`,
	}
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			c := newLoopClient(t, pc,
				llmtest.Script{Steps: llmtest.Steps(llmtest.ToolCall("capture_concepts", `{"concepts":[]}`, 2).WithCallID("call_vat"))},
				llmtest.TextScript("The standard rate is 23%."))
			if got := summary(c.call()); got != "[tool:capture_concepts][usage]" {
				t.Fatalf("first call = %s, want the tool call only", got)
			}
			if got := summary(c.call()); got != "[text:The standard rate is 23%.][usage]" {
				t.Fatalf("second call = %s, want the answer", got)
			}
			reqs := c.srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("server saw %d requests, want 2", len(reqs))
			}
			if got := wireConversation(t, reqs[1]); got != want[pc.protocol] {
				t.Fatalf("second request carried\n%s\nwant\n%s", got, want[pc.protocol])
			}
			outputs := reqs[1].ToolOutputsAfterLastUser()
			if len(outputs) != 1 || outputs[0].ToolCallID != "call_vat" || outputs[0].Content != "output of call_vat" {
				t.Fatalf("recorded tool outputs = %+v", outputs)
			}
			if len(reqs[0].ToolOutputs()) != 0 || len(reqs[1].Tools) != 1 {
				t.Fatalf("first request had outputs or second lost its tools: %+v / %+v", reqs[0].ToolOutputs(), reqs[1].Tools)
			}
		})
	}
}

func TestToolThenTextAndToolInSecondCall(t *testing.T) {
	want := map[llmtest.Protocol]string{
		llmtest.ProtocolResponses: `function_call(call_a capture_concepts {"a":1}) function_call_output(call_a: output of call_a) ` +
			`message(assistant: Also VRT. ) function_call(call_b capture_concepts {"b":2}) function_call_output(call_b: output of call_b)`,
		llmtest.ProtocolChat: `assistant(<nil>)[call_a function capture_concepts {"a":1}] tool(call_a: output of call_a) ` +
			`assistant(Also VRT. )[call_b function capture_concepts {"b":2}] tool(call_b: output of call_b)`,
	}
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			c := newLoopClient(t, pc,
				llmtest.Script{Steps: llmtest.Steps(llmtest.ToolCall("capture_concepts", `{"a":1}`, 1).WithCallID("call_a"))},
				llmtest.Script{Steps: llmtest.Steps(llmtest.Words("Also VRT. "), llmtest.ToolCall("capture_concepts", `{"b":2}`, 3).WithCallID("call_b"))},
				llmtest.TextScript("Both taxes apply."))
			c.call()
			if got := summary(c.call()); got != "[text:Also VRT. ][tool:capture_concepts][usage]" {
				t.Fatalf("second call = %s", got)
			}
			if got := summary(c.call()); got != "[text:Both taxes apply.][usage]" {
				t.Fatalf("third call = %s", got)
			}
			if got := wireConversation(t, c.srv.Requests()[2]); got != want[pc.protocol] {
				t.Fatalf("third request carried\n%s\nwant\n%s", got, want[pc.protocol])
			}
		})
	}
}

func TestParallelToolCalls(t *testing.T) {
	want := map[llmtest.Protocol]string{
		llmtest.ProtocolResponses: `function_call(call_1 capture_concepts {"n":1}) function_call(call_2 request_context {"n":2}) ` +
			`function_call_output(call_1: output of call_1) function_call_output(call_2: output of call_2)`,
		llmtest.ProtocolChat: `assistant(<nil>)[call_1 function capture_concepts {"n":1}; call_2 function request_context {"n":2}] ` +
			`tool(call_1: output of call_1) tool(call_2: output of call_2)`,
	}
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			c := newLoopClient(t, pc,
				llmtest.Script{Steps: llmtest.Steps(
					llmtest.ToolCall("capture_concepts", `{"n":1}`, 2).WithCallID("call_1"),
					llmtest.ToolCall("request_context", `{"n":2}`, 2).WithCallID("call_2"))},
				llmtest.TextScript("Done."))
			chunks := c.call()
			if got := summary(chunks); got != "[tool:capture_concepts][tool:request_context][usage]" {
				t.Fatalf("first call = %s", got)
			}
			if got := callIDs(chunks); got != "call_1,call_2" {
				t.Fatalf("call ids = %q", got)
			}
			if got := summary(c.call()); got != "[text:Done.][usage]" {
				t.Fatalf("second call = %s", got)
			}
			if got := wireConversation(t, c.srv.Requests()[1]); got != want[pc.protocol] {
				t.Fatalf("second request carried\n%s\nwant\n%s", got, want[pc.protocol])
			}
		})
	}
}

// The fake answers a broken tool loop as the real endpoint does; the
// provider reports it as an HTTP 400 that is not a tools refusal.
func TestBrokenToolLoopIsRejected(t *testing.T) {
	orphan := llm.Message{Role: llm.RoleTool, ToolCallID: "call_unknown", Content: "late output"}
	unanswered := llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_x", Name: "capture_concepts", ArgsJSON: json.RawMessage(`{}`)}}}
	want := map[llmtest.Protocol][2]string{
		llmtest.ProtocolResponses: {"No tool call found for function call output with call_id call_unknown.", "No tool output found for function call call_x."},
		llmtest.ProtocolChat: {"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
			"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_x"},
	}
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			for i, extra := range []llm.Message{orphan, unanswered} {
				srv := llmtest.NewServer(t)
				req := baseRequest()
				req.Messages = append(req.Messages, extra)
				ch, err := pc.build(srv, openai.Config{APIKey: "sk-test"}).Stream(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				chunks := collect(t, ch)
				var perr *llm.ProviderError
				if summary(chunks) != "[error]" || !errors.As(chunks[0].Err, &perr) {
					t.Fatalf("chunks = %s, want one ProviderError", summary(chunks))
				}
				if perr.StatusCode != http.StatusBadRequest || perr.Message != want[pc.protocol][i] {
					t.Fatalf("error = %d %q, want 400 %q", perr.StatusCode, perr.Message, want[pc.protocol][i])
				}
				if llm.IsToolsRefused(perr) {
					t.Fatal("a broken tool loop was taken for a tools refusal")
				}
				if n := len(srv.Requests()); n != 1 {
					t.Fatalf("server recorded %d requests, want 1", n)
				}
			}
		})
	}
}

// A model without tool support refuses the request with tools; the same
// request without tools is answered (answer-only).
func TestToolsRefusedIsRecognised(t *testing.T) {
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.SetToolsRefused(true)
			srv.Enqueue(llmtest.TextScript("An answer without tools."))
			provider := pc.build(srv, openai.Config{APIKey: "sk-test"})
			ch, err := provider.Stream(context.Background(), baseRequest())
			if err != nil {
				t.Fatal(err)
			}
			chunks := collect(t, ch)
			if summary(chunks) != "[error]" {
				t.Fatalf("chunks = %s, want one error", summary(chunks))
			}
			if !llm.IsToolsRefused(chunks[0].Err) {
				t.Fatalf("IsToolsRefused(%v) = false", chunks[0].Err)
			}
			answerOnly := baseRequest()
			answerOnly.Tools = nil
			ch, err = provider.Stream(context.Background(), answerOnly)
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(collect(t, ch)); got != "[text:An answer without tools.][usage]" {
				t.Fatalf("answer-only call = %s", got)
			}
		})
	}
}
