// Package llmtest is a fake OpenAI HTTP server for tests. It speaks the
// streaming Responses API (POST .../responses) and the streaming Chat
// Completions API (POST .../chat/completions) in the byte formats OpenAI
// documents, records every request, and plays a scripted answer per request.
//
//	srv := llmtest.NewServer(t)
//	srv.Enqueue(llmtest.Script{Steps: []llmtest.Step{
//		llmtest.Text("VAT is "), llmtest.Text("23%."),
//		llmtest.ToolCallJSON("capture_concepts", map[string]any{"concepts": concepts}, 4),
//	}})
//	provider := openai.NewResponses(openai.Config{APIKey: "test", BaseURL: srv.BaseURL()})
//	...
//	req := srv.Requests()[0] // System, Messages, Tools as the model saw them
package llmtest

import (
	"encoding/json"
	"strings"
	"time"
)

// StepKind tags a Step.
type StepKind string

const (
	StepText       StepKind = "text"
	StepToolCall   StepKind = "tool_call"
	StepError      StepKind = "error"      // Responses `error` event / Chat `data: {"error":...}`
	StepFailed     StepKind = "failed"     // Responses `response.failed` (Chat: same as StepError)
	StepDisconnect StepKind = "disconnect" // end the body without the terminal event
	StepPause      StepKind = "pause"      // wait before the next step
)

// Step is one scripted action of a streamed answer. Build steps with the
// helper functions (Text, Words, ToolCall, ToolCallJSON, StreamError, Failed,
// Disconnect, Pause).
type Step struct {
	Kind StepKind
	// Text is the text delta (StepText).
	Text string
	// ToolName and ToolArgs describe a function call (StepToolCall); ToolArgs
	// is sent verbatim, so it may be malformed JSON on purpose.
	ToolName string
	ToolArgs string
	// ToolParts is how many argument deltas ToolArgs is split into (min 1).
	ToolParts int
	// ErrorCode and ErrorMessage describe StepError/StepFailed.
	ErrorCode    string
	ErrorMessage string
	// Pause is the wait for StepPause.
	Pause time.Duration
}

// Text is one text delta.
func Text(delta string) Step { return Step{Kind: StepText, Text: delta} }

// Words splits text into word deltas (each keeps its trailing space), the way
// models stream short tokens.
func Words(text string) []Step {
	var steps []Step
	for _, word := range strings.SplitAfter(text, " ") {
		if word != "" {
			steps = append(steps, Text(word))
		}
	}
	return steps
}

// ToolCall is a function call whose raw arguments are split into parts
// argument deltas. The arguments are sent as given (malformed on purpose is fine).
func ToolCall(name, rawArgs string, parts int) Step {
	return Step{Kind: StepToolCall, ToolName: name, ToolArgs: rawArgs, ToolParts: parts}
}

// ToolCallJSON is ToolCall with args marshalled to JSON; it panics if args
// cannot be marshalled (a test bug).
func ToolCallJSON(name string, args any, parts int) Step {
	raw, err := json.Marshal(args)
	if err != nil {
		panic("llmtest: tool args do not marshal: " + err.Error())
	}
	return ToolCall(name, string(raw), parts)
}

// StreamError is a mid-stream error event; the stream ends after it.
func StreamError(code, message string) Step {
	return Step{Kind: StepError, ErrorCode: code, ErrorMessage: message}
}

// Failed is a Responses `response.failed` event (a StreamError on Chat
// Completions); the stream ends after it.
func Failed(code, message string) Step {
	return Step{Kind: StepFailed, ErrorCode: code, ErrorMessage: message}
}

// Disconnect ends the response body abruptly, without the terminal event.
func Disconnect() Step { return Step{Kind: StepDisconnect} }

// Pause waits d before the next step (the request's cancellation ends it).
func Pause(d time.Duration) Step { return Step{Kind: StepPause, Pause: d} }

// Usage is the token usage the fake reports.
type Usage struct {
	InputTokens  int
	OutputTokens int
}

// Script is the scripted answer to one request.
type Script struct {
	// Steps are played in order. Consecutive text steps form one output
	// message item (Responses) as the real API does.
	Steps []Step
	// Status, when not 0 or 200, answers with that HTTP status and an OpenAI
	// error JSON body before any streaming.
	Status int
	// ErrorMessage is the message of that error body.
	ErrorMessage string
	// DeltaDelay is waited before every delta event (0: none).
	DeltaDelay time.Duration
	// Usage overrides the reported usage; nil derives it from the request
	// size and the number of deltas.
	Usage *Usage
	// ResponseModel overrides the model echoed in events (default: the
	// request's model).
	ResponseModel string
}

// HTTPError is a script that fails with status before streaming.
func HTTPError(status int, message string) Script {
	return Script{Status: status, ErrorMessage: message}
}

// TextScript streams text word by word and completes.
func TextScript(text string) Script { return Script{Steps: Words(text)} }

// Steps flattens steps and step lists into one slice, for building scripts
// such as Steps(Words("Hello there"), ToolCall(...)).
func Steps(parts ...any) []Step {
	var out []Step
	for _, part := range parts {
		switch v := part.(type) {
		case Step:
			out = append(out, v)
		case []Step:
			out = append(out, v...)
		default:
			panic("llmtest.Steps: want Step or []Step")
		}
	}
	return out
}

// splitParts splits s into n nearly equal pieces on rune boundaries (fewer
// when s is shorter than n runes; one empty piece when s is empty).
func splitParts(s string, n int) []string {
	runes := []rune(s)
	if n < 1 {
		n = 1
	}
	if n > len(runes) {
		n = len(runes)
	}
	if n <= 1 {
		return []string{s}
	}
	parts := make([]string, 0, n)
	size := len(runes) / n
	extra := len(runes) % n
	start := 0
	for i := range n {
		end := start + size
		if i < extra {
			end++
		}
		parts = append(parts, string(runes[start:end]))
		start = end
	}
	return parts
}
