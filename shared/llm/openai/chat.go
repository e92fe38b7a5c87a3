package openai

import (
	"context"
	"encoding/json"
	"log/slog"
	"sort"
	"strings"

	openaisdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"regintel/shared/llm"
	"regintel/shared/tracing"
)

// ChatName is the provider name reported in metadata.
const ChatName = "openai-chat"

// Chat streams through an OpenAI-compatible Chat Completions endpoint.
type Chat struct {
	cfg     Config
	service openaisdk.ChatCompletionService
}

// NewChat builds the Chat Completions provider.
func NewChat(cfg Config) *Chat {
	client := cfg.client()
	return &Chat{cfg: cfg, service: client.Chat.Completions}
}

// Name implements llm.Provider.
func (p *Chat) Name() string { return ChatName }

// SupportsTools implements llm.Provider.
func (p *Chat) SupportsTools() bool { return true }

// Model is the configured default model.
func (p *Chat) Model() string { return p.cfg.Model }

// Stream implements llm.Provider; see the package comment for failure semantics.
func (p *Chat) Stream(ctx context.Context, req llm.Request) (<-chan llm.Chunk, error) {
	return startStream(ctx, req, func(em *emitter) { p.run(ctx, p.params(req), em) })
}

func (p *Chat) params(req llm.Request) openaisdk.ChatCompletionNewParams {
	model := req.Model
	if model == "" {
		model = p.cfg.Model
	}
	params := openaisdk.ChatCompletionNewParams{Model: model}
	if req.System != "" {
		params.Messages = append(params.Messages, openaisdk.SystemMessage(req.System))
	}
	for _, msg := range req.Messages {
		params.Messages = append(params.Messages, chatMessage(msg))
	}
	if req.Temperature >= 0 {
		params.Temperature = param.NewOpt(req.Temperature)
	}
	for _, tool := range req.Tools {
		def := shared.FunctionDefinitionParam{Name: tool.Name, Parameters: shared.FunctionParameters(tool.Parameters)}
		if tool.Description != "" {
			def.Description = param.NewOpt(tool.Description)
		}
		params.Tools = append(params.Tools, openaisdk.ChatCompletionFunctionTool(def))
	}
	if !p.cfg.DisableStreamUsage {
		params.StreamOptions = openaisdk.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)}
	}
	return params
}

// chatMessage maps one message. An assistant turn that called tools carries
// its tool_calls; each tool output is a "tool" message naming the call.
func chatMessage(msg llm.Message) openaisdk.ChatCompletionMessageParamUnion {
	switch msg.Role {
	case llm.RoleAssistant:
		if len(msg.ToolCalls) == 0 {
			return openaisdk.AssistantMessage(msg.Content)
		}
		assistant := openaisdk.ChatCompletionAssistantMessageParam{}
		if msg.Content != "" {
			assistant.Content.OfString = param.NewOpt(msg.Content)
		}
		for _, call := range msg.ToolCalls {
			assistant.ToolCalls = append(assistant.ToolCalls, openaisdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openaisdk.ChatCompletionMessageFunctionToolCallParam{
					ID:       call.ID,
					Function: openaisdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: call.Name, Arguments: argumentsText(call.ArgsJSON)},
				},
			})
		}
		return openaisdk.ChatCompletionMessageParamUnion{OfAssistant: &assistant}
	case llm.RoleTool:
		return openaisdk.ToolMessage(msg.Content, msg.ToolCallID)
	case llm.RoleSystem:
		return openaisdk.SystemMessage(msg.Content)
	default:
		return openaisdk.UserMessage(msg.Content)
	}
}

// chatCall is a tool call assembled from deltas sharing one index.
type chatCall struct {
	id      string
	name    string
	args    strings.Builder
	emitted bool
}

func (p *Chat) run(callerCtx context.Context, params openaisdk.ChatCompletionNewParams, em *emitter) {
	callerCtx, span := tracing.Start(callerCtx, "llm call", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("gen_ai.system", ChatName), attribute.String("gen_ai.request.model", string(params.Model))))
	defer span.End()
	em.span = span
	ctx, resetIdle, stop := p.cfg.streamContext(callerCtx)
	defer stop()
	s := &chatStream{
		em:    em,
		log:   p.cfg.logger().With("provider", ChatName, "model", params.Model),
		calls: map[int64]*chatCall{},
	}

	stream := p.service.NewStreaming(ctx, params)
	defer stream.Close()
	for stream.Next() {
		resetIdle()
		if !s.handleChunk(stream.Current()) {
			return
		}
	}
	if err := stream.Err(); err != nil {
		em.fail(streamFailure(ChatName, callerCtx, ctx, err))
		return
	}
	if callerCtx.Err() != nil {
		em.fail(streamFailure(ChatName, callerCtx, ctx, callerCtx.Err()))
		return
	}
	if !s.finished {
		em.fail(&llm.ProviderError{Provider: ChatName, Code: "incomplete_stream", Message: "stream ended without a finish_reason"})
		return
	}
	if s.usage != nil {
		em.send(llm.Chunk{Type: llm.ChunkUsage, Usage: s.usage})
	}
}

// chatStream is what one Chat Completions stream has seen so far: the tool
// calls being assembled, whether the choice finished, the latest usage.
// Its methods return false once the consumer is gone.
type chatStream struct {
	em       *emitter
	log      *slog.Logger
	calls    map[int64]*chatCall
	finished bool
	usage    *llm.Usage
}

// allCalls is an index limit above every tool call's.
const allCalls = int64(1) << 62

func (s *chatStream) handleChunk(chunk openaisdk.ChatCompletionChunk) bool {
	for _, choice := range chunk.Choices {
		if choice.Index != 0 { // one completion is requested
			continue
		}
		if !s.handleChoice(choice) {
			return false
		}
	}
	if u, ok := chunkUsage(chunk); ok {
		s.usage = u
	}
	return true
}

func (s *chatStream) handleChoice(choice openaisdk.ChatCompletionChunkChoice) bool {
	delta := choice.Delta
	if text := delta.Content + delta.Refusal; text != "" {
		if !s.em.send(llm.Chunk{Type: llm.ChunkText, Delta: text}) {
			return false
		}
	}
	for _, tc := range delta.ToolCalls {
		if !s.addToolDelta(tc) {
			return false
		}
	}
	if choice.FinishReason != "" {
		s.finished = true
		return s.emitUpTo(allCalls)
	}
	return true
}

// addToolDelta appends a delta to the call at its index; the first delta
// of a new index completes the calls before it.
func (s *chatStream) addToolDelta(tc openaisdk.ChatCompletionChunkChoiceDeltaToolCall) bool {
	call, ok := s.calls[tc.Index]
	if !ok {
		call = &chatCall{}
		s.calls[tc.Index] = call
		if !s.emitUpTo(tc.Index) {
			return false
		}
	}
	if tc.Function.Name != "" {
		call.name = tc.Function.Name
	}
	if tc.ID != "" {
		call.id = tc.ID
	}
	call.args.WriteString(tc.Function.Arguments)
	return true
}

// emitUpTo emits, in index order, the calls whose index is below limit:
// a call is complete once a later index starts or the choice finishes.
func (s *chatStream) emitUpTo(limit int64) bool {
	indexes := make([]int64, 0, len(s.calls))
	for index := range s.calls {
		indexes = append(indexes, index)
	}
	sort.Slice(indexes, func(i, j int) bool { return indexes[i] < indexes[j] })
	for _, index := range indexes {
		call := s.calls[index]
		if index >= limit || call.emitted {
			continue
		}
		call.emitted = true
		args := call.args.String()
		if !json.Valid([]byte(args)) {
			s.log.Warn("tool call arguments are not valid JSON; passing them on raw", "tool", call.name, "bytes", len(args))
		}
		if !s.em.send(llm.Chunk{Type: llm.ChunkTool, CallID: call.id, ToolName: call.name, ArgsJSON: json.RawMessage(args)}) {
			return false
		}
	}
	return true
}

// chunkUsage reads usage from the standard field, or from Groq's x_groq.usage.
func chunkUsage(chunk openaisdk.ChatCompletionChunk) (*llm.Usage, bool) {
	if chunk.JSON.Usage.Valid() && chunk.Usage.TotalTokens > 0 {
		return &llm.Usage{
			InputTokens:  int(chunk.Usage.PromptTokens),
			OutputTokens: int(chunk.Usage.CompletionTokens),
			TotalTokens:  int(chunk.Usage.TotalTokens),
			// Reported as prompt_tokens_details.cached_tokens.
			CachedInputTokens: int(chunk.Usage.PromptTokensDetails.CachedTokens),
		}, true
	}
	if extra, ok := chunk.JSON.ExtraFields["x_groq"]; ok && extra.Valid() {
		var groq struct {
			Usage *struct {
				PromptTokens     int `json:"prompt_tokens"`
				CompletionTokens int `json:"completion_tokens"`
				TotalTokens      int `json:"total_tokens"`
			} `json:"usage"`
		}
		if json.Unmarshal([]byte(extra.Raw()), &groq) == nil && groq.Usage != nil {
			return &llm.Usage{InputTokens: groq.Usage.PromptTokens, OutputTokens: groq.Usage.CompletionTokens, TotalTokens: groq.Usage.TotalTokens}, true
		}
	}
	return nil, false
}
