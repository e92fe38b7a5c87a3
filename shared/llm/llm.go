// Package llm is the provider-neutral streaming contract: a request with
// tools, and a stream of chunks that are text, a complete tool call, usage,
// or an error.
//
// The tool loop: a response that calls tools ends after the calls, as real
// endpoints do. The caller runs the tools and sends a new request whose
// messages append the assistant's message (its text, may be "", and its
// ToolCalls) and then one RoleTool message per call (ToolCallID = the call's
// ID, Content = the tool's output); the model then answers or calls again.
package llm

import (
	"context"
	"encoding/json"
	"strconv"
)

// Role of a message sent to the model.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool is the output of one tool call, sent back to the model.
	RoleTool Role = "tool"
)

// ToolCall is one function call the model made.
type ToolCall struct {
	// ID is the provider's call id (Responses call_id; Chat tool_calls[].id).
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	ArgsJSON json.RawMessage `json:"arguments"`
}

// Message is one prompt message.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
	// ToolCalls: an assistant message that called tools (Content is the text
	// it wrote before them, may be "").
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ToolCallID: a RoleTool message is the output (Content) of that call.
	ToolCallID string `json:"toolCallId,omitempty"`
}

// Tool is a function tool offered to the model; Parameters is a JSON Schema.
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any
}

// Request is one streamed completion.
type Request struct {
	Model    string
	System   string
	Messages []Message
	Tools    []Tool
	// Temperature < 0 leaves the provider default.
	Temperature float64
}

// ChunkType tags a Chunk.
type ChunkType string

const (
	ChunkText  ChunkType = "text"
	ChunkTool  ChunkType = "tool"
	ChunkUsage ChunkType = "usage"
	ChunkError ChunkType = "error"
)

// Usage is token usage as reported by the provider.
type Usage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
	TotalTokens  int `json:"totalTokens"`
	// CachedInputTokens is the part of InputTokens the provider served
	// from its prompt cache (billed at the cached input price).
	CachedInputTokens int `json:"cachedInputTokens"`
	// Estimated is set when part of the usage is our count, not the
	// provider's: a call cut off before its usage arrived.
	Estimated bool `json:"estimated,omitempty"`
	// CostUSD is the usage at the model's prices; nil when the model has
	// no price.
	CostUSD *float64 `json:"costUsd,omitempty"`
}

// Plus is the usage of two calls together; a sum with an estimated part
// is estimated. It has no cost: price the sum.
func (u Usage) Plus(v Usage) Usage {
	return Usage{
		InputTokens:       u.InputTokens + v.InputTokens,
		OutputTokens:      u.OutputTokens + v.OutputTokens,
		TotalTokens:       u.TotalTokens + v.TotalTokens,
		CachedInputTokens: u.CachedInputTokens + v.CachedInputTokens,
		Estimated:         u.Estimated || v.Estimated,
	}
}

// Chunk is the tagged union LlmStreamChunk: exactly one of Delta (text),
// CallID+ToolName+ArgsJSON (one complete tool call, arguments assembled from
// all deltas), Usage, or Err is meaningful, by Type.
type Chunk struct {
	Type  ChunkType
	Delta string
	// CallID is the ToolCall.ID of a ChunkTool chunk, to send its output back.
	CallID   string
	ToolName string
	ArgsJSON json.RawMessage
	Usage    *Usage
	Err      error
}

// ToolCall is the call a ChunkTool chunk carries.
func (c Chunk) ToolCall() ToolCall {
	return ToolCall{ID: c.CallID, Name: c.ToolName, ArgsJSON: c.ArgsJSON}
}

// Provider streams one completion. The returned channel is closed when the
// stream ends; an error chunk is the last chunk sent. Cancelling ctx stops
// the stream.
type Provider interface {
	Stream(ctx context.Context, req Request) (<-chan Chunk, error)
	// Name is the provider family for metadata ("openai", "openai-chat", "offline").
	Name() string
	// SupportsTools is false for answer-only providers: they answer without
	// tools, so no concepts are captured.
	SupportsTools() bool
}

// ProviderError is a model failure: an HTTP error before streaming, an error
// event mid-stream, or a stream that ended early. Message may carry provider
// detail: log it, do not show it to users.
type ProviderError struct {
	Provider string // "openai", "openai-chat", "offline"
	// StatusCode is the HTTP status when the request failed before streaming (else 0).
	StatusCode int
	// Code is the provider's error code when it sent one ("server_error", "rate_limit_exceeded"...).
	Code    string
	Message string
	// Err is the underlying error, if any (network error, context error...).
	Err error
}

func (e *ProviderError) Error() string {
	msg := e.Provider + ": "
	if e.StatusCode != 0 {
		msg += "HTTP " + strconv.Itoa(e.StatusCode) + ": "
	}
	if e.Code != "" {
		msg += e.Code + ": "
	}
	msg += e.Message
	if e.Err != nil && e.Message == "" {
		msg += e.Err.Error()
	}
	return msg
}

func (e *ProviderError) Unwrap() error { return e.Err }
