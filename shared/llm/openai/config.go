// Package openai implements llm.Provider on the OpenAI Responses API
// (Responses, LLM_PROVIDER=openai) and on any OpenAI-compatible Chat
// Completions endpoint (Chat, LLM_PROVIDER=openai-chat: Groq, Ollama, vLLM,
// llama.cpp by base URL), both streaming through openai-go.
//
// Failure reporting: Stream returns an error only for a request it cannot
// send (no messages). Everything else — an HTTP error before streaming (e.g.
// a 500), an error event mid-stream, a stream that ends without its terminal
// event, a timeout — arrives as one error chunk carrying *llm.ProviderError,
// and it is always the last chunk. On cancellation of ctx the stream stops and
// the channel closes; an error chunk with the context error is delivered if
// the consumer is still reading.
//
// Tool calls: exactly one tool chunk per call, with the complete arguments.
// Arguments that are not valid JSON are still delivered raw in ArgsJSON (the
// engine validates and skips them) and logged as a warning without content.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	openaisdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"go.opentelemetry.io/otel/trace"

	"regintel/shared/llm"
	"regintel/shared/tracing"
)

// Config configures either provider.
type Config struct {
	// APIKey is sent as the bearer token. Empty is allowed for local servers
	// that need none (a placeholder is sent).
	APIKey string
	// BaseURL is the API root including its version ("https://host/v1/").
	// Empty uses OpenAI's default.
	BaseURL string
	// Model is used when a Request leaves Model empty.
	Model string
	// HTTPClient overrides the HTTP client (tests).
	HTTPClient *http.Client
	// Timeout bounds a whole streamed call (default 5 minutes; negative: none).
	Timeout time.Duration
	// IdleTimeout bounds the silence between two stream events, and the wait
	// for the response headers (default 90 seconds, room for silent reasoning;
	// negative: none).
	IdleTimeout time.Duration
	// MaxRetries is how many times the SDK retries a failed request. The SDK
	// only retries on a connection error or a retryable status (408, 409, 429,
	// 5xx), that is before any byte of the stream was read, so a retry cannot
	// duplicate streamed text. Default 0.
	MaxRetries int
	// DisableStreamUsage stops the Chat provider asking for
	// stream_options.include_usage, for servers that reject it.
	DisableStreamUsage bool
	// PromptCacheRetention is sent as prompt_cache_retention: "in_memory"
	// or "24h" (extended caching, on the models that offer it); "" leaves
	// the provider's default.
	PromptCacheRetention string
	// Logger receives warnings (never prompt text or keys). Default slog.Default().
	Logger *slog.Logger
}

const (
	defaultTimeout     = 5 * time.Minute
	defaultIdleTimeout = 90 * time.Second
	chunkBuffer        = 32
)

func (c Config) timeout() time.Duration {
	switch {
	case c.Timeout == 0:
		return defaultTimeout
	case c.Timeout < 0:
		return 0
	}
	return c.Timeout
}

func (c Config) idleTimeout() time.Duration {
	switch {
	case c.IdleTimeout == 0:
		return defaultIdleTimeout
	case c.IdleTimeout < 0:
		return 0
	}
	return c.IdleTimeout
}

func (c Config) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

func (c Config) client() openaisdk.Client {
	apiKey := c.APIKey
	if apiKey == "" {
		apiKey = "unused" // local OpenAI-compatible servers ignore it; the SDK wants one
	}
	opts := []option.RequestOption{
		option.WithAPIKey(apiKey),
		option.WithMaxRetries(max(c.MaxRetries, 0)),
	}
	if c.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(c.BaseURL))
	}
	if c.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(c.HTTPClient))
	}
	return openaisdk.NewClient(opts...)
}

var errIdle = errors.New("no stream event within the idle timeout")

// streamContext derives the context of one call: the overall timeout, plus
// an idle watchdog whose reset func must be called on every event.
func (c Config) streamContext(parent context.Context) (ctx context.Context, reset func(), stop func()) {
	ctx, cancelCause := context.WithCancelCause(parent)
	var cancelTimeout context.CancelFunc = func() {}
	if d := c.timeout(); d > 0 {
		ctx, cancelTimeout = context.WithTimeout(ctx, d)
	}
	reset = func() {}
	var idleTimer *time.Timer
	if d := c.idleTimeout(); d > 0 {
		idleTimer = time.AfterFunc(d, func() { cancelCause(errIdle) })
		reset = func() { idleTimer.Reset(d) }
	}
	stop = func() {
		if idleTimer != nil {
			idleTimer.Stop()
		}
		cancelTimeout()
		cancelCause(nil)
	}
	return ctx, reset, stop
}

// emitter sends chunks unless the caller has gone away.
type emitter struct {
	ctx  context.Context // the caller's context
	out  chan llm.Chunk
	span trace.Span // the call's span: a failure marks it
}

// send delivers a chunk; false when the caller cancelled.
func (e *emitter) send(chunk llm.Chunk) bool {
	select {
	case e.out <- chunk:
		return true
	case <-e.ctx.Done():
		return false
	}
}

// fail sends the final error chunk. After the caller cancelled it only tries
// without blocking, so an abandoned channel never leaks the goroutine.
func (e *emitter) fail(err error) {
	if e.span != nil {
		tracing.Fail(e.span, err)
	}
	if e.ctx.Err() != nil {
		select {
		case e.out <- llm.Chunk{Type: llm.ChunkError, Err: err}:
		default:
		}
		return
	}
	e.send(llm.Chunk{Type: llm.ChunkError, Err: err})
}

// streamFailure turns an SDK/transport error into a ProviderError, telling
// apart caller cancellation, the idle watchdog and the overall timeout.
func streamFailure(provider string, callerCtx, streamCtx context.Context, err error) *llm.ProviderError {
	if callerCtx.Err() != nil {
		return &llm.ProviderError{Provider: provider, Code: "cancelled", Message: "request cancelled", Err: callerCtx.Err()}
	}
	if cause := context.Cause(streamCtx); errors.Is(cause, errIdle) {
		return &llm.ProviderError{Provider: provider, Code: "timeout", Message: errIdle.Error(), Err: cause}
	}
	if errors.Is(streamCtx.Err(), context.DeadlineExceeded) {
		return &llm.ProviderError{Provider: provider, Code: "timeout", Message: "stream exceeded its time limit", Err: streamCtx.Err()}
	}
	var apiErr *openaisdk.Error
	if errors.As(err, &apiErr) {
		return &llm.ProviderError{Provider: provider, StatusCode: apiErr.StatusCode, Code: apiErr.Code, Message: apiErr.Message, Err: err}
	}
	var eventErr *ssestream.StreamError
	if errors.As(err, &eventErr) {
		// An event whose payload has an "error" object: {"error":{"code","message",...}}.
		var payload struct {
			Error struct {
				Code    any    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(eventErr.Event.Data, &payload)
		code := ""
		if payload.Error.Code != nil {
			code = fmt.Sprint(payload.Error.Code)
		}
		return &llm.ProviderError{Provider: provider, Code: code, Message: orDefault(payload.Error.Message, "error event in stream"), Err: err}
	}
	return &llm.ProviderError{Provider: provider, Message: fmt.Sprintf("stream failed: %v", err), Err: err}
}

func orDefault(value, fallback string) string {
	if value == "" {
		return fallback
	}
	return value
}
