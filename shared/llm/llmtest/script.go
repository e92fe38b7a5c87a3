// Package llmtest is a fake OpenAI HTTP server for tests. It speaks the
// streaming Responses API (POST .../responses) and the streaming Chat
// Completions API (POST .../chat/completions) in the byte formats OpenAI
// documents, records every request, and plays one scripted response per
// request.
//
// Like the real endpoints, a response that calls a function ends there
// (response.completed / finish_reason "tool_calls"): the model waits for the
// tool's output, which the client sends in its next request. So a tool loop
// is scripted per call:
//
//	srv := llmtest.NewServer(t)
//	srv.Enqueue(
//		// call 1: text, then a call (real models do both in one response)
//		llmtest.Script{Steps: llmtest.Steps(llmtest.Words("Let me note that. "),
//			llmtest.ToolCallJSON("capture_concepts", args, 4))},
//		// call 2: the answer, once the tool output came back
//		llmtest.TextScript("VAT is 23%."),
//	)
//	provider := openai.NewResponses(openai.Config{APIKey: "test", BaseURL: srv.BaseURL(), HTTPClient: srv.Client()})
//	...
//	second := srv.Requests()[1]     // System, Messages, Tools as the model saw them
//	outputs := second.ToolOutputs() // the RoleTool messages the client sent back
//
// Scripts are chosen per request: the next enqueued one, else the
// Responder (which sees the request, e.g. len(req.ToolOutputsAfterLastUser())
// to tell a first call from the one carrying tool outputs), else the default.
// Consecutive ToolCall steps are parallel calls in one response. Text after
// a tool call in one script is a script error: the test fails and the fake
// answers HTTP 500.
//
// Each request is checked as the real endpoint checks it: a tool output whose
// call id matches no earlier call, or a call left without its output, gets
// the HTTP 400 and error body the real API sends, without using a script.
// SetToolsRefused(true) makes every request that offers tools fail with the
// HTTP 400 a model without tool support gets, for answer-only tests.
package llmtest

import (
	"encoding/json"
	"errors"
	"fmt"
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
	// CallID is the call's id (empty: a fresh "call_..." id).
	CallID string
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

// WithCallID gives a tool call step a fixed call id, for tests that assert it.
func (s Step) WithCallID(id string) Step {
	s.CallID = id
	return s
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
	// CachedInputTokens is the part of InputTokens reported as served
	// from the prompt cache.
	CachedInputTokens int
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

// errTextAfterToolCall: real endpoints end a response after its function
// calls, so text can only come in the next call.
var errTextAfterToolCall = errors.New("text after a tool call: a response that calls a function ends there; script the answer as the next call's script")

// Validate reports a script no real endpoint could produce.
func (s Script) Validate() error {
	if s.Status != 0 && s.Status != 200 {
		return nil
	}
	called := false
	for i, step := range s.Steps {
		switch step.Kind {
		case StepToolCall:
			if step.ToolName == "" {
				return fmt.Errorf("step %d: tool call without a name", i)
			}
			called = true
		case StepText:
			if called {
				return fmt.Errorf("step %d: %w", i, errTextAfterToolCall)
			}
		}
	}
	return nil
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
