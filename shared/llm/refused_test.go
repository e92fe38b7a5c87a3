package llm_test

import (
	"errors"
	"fmt"
	"testing"

	"regintel/shared/llm"
)

func TestIsToolsRefused(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		message string
		want    bool
	}{
		{"OpenAI model without tools", 400, "Unsupported parameter: 'tools' is not supported with this model.", true},
		{"OpenAI tool_choice", 400, "'tool_choice' is not supported with this model.", true},
		{"Azure old API version", 400, "Unrecognized request argument supplied: tools", true},
		{"Azure both arguments", 400, "Unrecognized request arguments supplied: tool_choice, tools", true},
		{"Azure functions", 404, "Unrecognized request argument supplied: functions", true},
		{"Ollama", 400, "registry.ollama.ai/library/gemma3:4b does not support tools", true},
		{"Ollama short name", 400, "llama3 does not support tools", true},
		{"vLLM without a tool parser", 400, `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`, true},
		{"llama.cpp without jinja", 500, "tools param requires --jinja flag", true},
		{"OpenRouter", 404, "No endpoints found that support tool use. To learn more about provider routing, visit the docs", true},
		{"OpenRouter tool_choice", 404, "No endpoints found that support the provided 'tool_choice' value.", true},
		{"Groq-style wording", 400, "tool calling is not supported with this model", true},
		{"unknown call id is a bug, not a refusal", 400, "No tool call found for function call output with call_id call_abc.", false},
		{"orphan tool message is a bug", 400, "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", false},
		{"bad tool schema is a bug", 400, "Invalid schema for function 'capture_concepts': 'object' is not valid under any of the given schemas.", false},
		{"context too long", 400, "This model's maximum context length is 8192 tokens.", false},
		{"right wording, wrong status", 429, "llama3 does not support tools", false},
		{"server error without wording", 500, "The server had an error while processing your request.", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := fmt.Errorf("turn: %w", &llm.ProviderError{Provider: "openai-chat", StatusCode: tc.status, Message: tc.message})
			if got := llm.IsToolsRefused(err); got != tc.want {
				t.Fatalf("IsToolsRefused(%d %q) = %v, want %v", tc.status, tc.message, got, tc.want)
			}
		})
	}
}

func TestIsToolsRefusedReadsTheRawBody(t *testing.T) {
	// Ollama's native error body {"error":"..."} leaves the parsed message empty.
	raw := errors.New(`POST "/v1/chat/completions": 400 Bad Request {"error":"registry.ollama.ai/library/phi:latest does not support tools"}`)
	if !llm.IsToolsRefused(&llm.ProviderError{Provider: "openai-chat", StatusCode: 400, Err: raw}) {
		t.Fatal("refusal in the raw body not recognised")
	}
	if llm.IsToolsRefused(errors.New("does not support tools")) {
		t.Fatal("an error that is not a ProviderError was recognised")
	}
	if llm.IsToolsRefused(nil) {
		t.Fatal("nil recognised")
	}
}
