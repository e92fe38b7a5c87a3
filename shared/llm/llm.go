// Package llm is the provider-neutral streaming contract (seed 001 §3.1): a
// request with tools, and a stream of chunks that are text, a complete tool
// call, usage, or an error.
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
)

// Message is one prompt message.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
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
}

// Chunk is the tagged union LlmStreamChunk: exactly one of Delta (text),
// ToolName+ArgsJSON (one complete tool call, arguments assembled from all
// deltas), Usage, or Err is meaningful, by Type.
type Chunk struct {
	Type     ChunkType
	Delta    string
	ToolName string
	ArgsJSON json.RawMessage
	Usage    *Usage
	Err      error
}

// Provider streams one completion. The returned channel is closed when the
// stream ends; an error chunk is the last chunk sent. Cancelling ctx stops
// the stream.
type Provider interface {
	Stream(ctx context.Context, req Request) (<-chan Chunk, error)
	// Name is the provider family for metadata ("openai", "openai-chat", "offline").
	Name() string
	// SupportsTools is false for answer-only providers (seed 001 §2.2).
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
