package openai

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"regintel/shared/llm"
	"regintel/shared/tracing"
)

// ResponsesName is the provider name reported in metadata.
const ResponsesName = "openai"

// Responses streams through the OpenAI Responses API with function tools.
type Responses struct {
	cfg     Config
	service responses.ResponseService
}

// NewResponses builds the Responses API provider.
func NewResponses(cfg Config) *Responses {
	client := cfg.client()
	return &Responses{cfg: cfg, service: client.Responses}
}

// Name implements llm.Provider.
func (p *Responses) Name() string { return ResponsesName }

// SupportsTools implements llm.Provider.
func (p *Responses) SupportsTools() bool { return true }

// Model is the configured default model.
func (p *Responses) Model() string { return p.cfg.Model }

var errEmptyRequest = errors.New("request has no messages")

// startStream checks the request and runs one provider's stream loop in a
// goroutine that closes the channel when it ends.
func startStream(ctx context.Context, req llm.Request, run func(*emitter)) (<-chan llm.Chunk, error) {
	if len(req.Messages) == 0 {
		return nil, errEmptyRequest
	}
	out := make(chan llm.Chunk, chunkBuffer)
	go func() {
		defer close(out)
		run(&emitter{ctx: ctx, out: out})
	}()
	return out, nil
}

// Stream implements llm.Provider; see the package comment for failure semantics.
func (p *Responses) Stream(ctx context.Context, req llm.Request) (<-chan llm.Chunk, error) {
	return startStream(ctx, req, func(em *emitter) { p.run(ctx, p.params(req), em) })
}

func (p *Responses) params(req llm.Request) responses.ResponseNewParams {
	model := req.Model
	if model == "" {
		model = p.cfg.Model
	}
	params := responses.ResponseNewParams{
		Model: model,
		// The server owns history; nothing needs storing on OpenAI's side.
		Store: param.NewOpt(false),
	}
	if req.System != "" {
		params.Instructions = param.NewOpt(req.System)
	}
	if req.Temperature >= 0 {
		params.Temperature = param.NewOpt(req.Temperature)
	}
	params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: responsesInput(req.Messages)}
	for _, tool := range req.Tools {
		// strict=false: the capture_concepts schema has optional properties,
		// which strict mode does not allow.
		fn := responses.ToolParamOfFunction(tool.Name, tool.Parameters, false)
		if tool.Description != "" {
			fn.OfFunction.Description = param.NewOpt(tool.Description)
		}
		params.Tools = append(params.Tools, fn)
	}
	return params
}

// responsesInput turns messages into input items. An assistant turn that
// called tools is replayed as its own output: its text as an assistant
// message (if any; with store=false there is no output item id to cite),
// then each function_call; a tool message becomes the function_call_output
// with the same call_id.
func responsesInput(messages []llm.Message) responses.ResponseInputParam {
	input := make(responses.ResponseInputParam, 0, len(messages))
	for _, msg := range messages {
		switch {
		case msg.Role == llm.RoleTool:
			output := responses.ResponseInputItemParamOfFunctionCallOutput(msg.Content)
			output.OfFunctionCallOutput.CallID = param.NewOpt(msg.ToolCallID)
			input = append(input, output)
		case msg.Role == llm.RoleAssistant && len(msg.ToolCalls) > 0:
			if msg.Content != "" {
				text := responses.ResponseInputItemParamOfMessage(msg.Content, responses.EasyInputMessageRoleAssistant)
				text.OfMessage.Type = responses.EasyInputMessageTypeMessage
				input = append(input, text)
			}
			for _, call := range msg.ToolCalls {
				input = append(input, responses.ResponseInputItemParamOfFunctionCall(argumentsText(call.ArgsJSON), call.ID, call.Name))
			}
		default:
			input = append(input, responses.ResponseInputItemParamOfMessage(msg.Content, inputRole(msg.Role)))
		}
	}
	return input
}

// argumentsText is the arguments string sent back with a call; a call
// without arguments is sent as an empty object, which endpoints accept.
func argumentsText(args json.RawMessage) string {
	if len(args) == 0 {
		return "{}"
	}
	return string(args)
}

func inputRole(role llm.Role) responses.EasyInputMessageRole {
	switch role {
	case llm.RoleAssistant:
		return responses.EasyInputMessageRoleAssistant
	case llm.RoleSystem:
		return responses.EasyInputMessageRoleSystem
	default:
		return responses.EasyInputMessageRoleUser
	}
}

// pendingCall is a function call being assembled from stream events.
type pendingCall struct {
	itemID  string
	callID  string
	name    string
	args    strings.Builder
	final   *string // from .done events: authoritative over the deltas
	emitted bool
}

func (c *pendingCall) arguments() string {
	if c.final != nil {
		return *c.final
	}
	return c.args.String()
}

// learn fills the name and call id from an item that carries them.
func (c *pendingCall) learn(name, callID string) {
	if c.name == "" {
		c.name = name
	}
	if c.callID == "" {
		c.callID = callID
	}
}

// callTracker keys calls by item id and by output index (some compatible
// servers omit one of them).
type callTracker struct {
	byItem  map[string]*pendingCall
	byIndex map[int64]*pendingCall
	order   []*pendingCall
}

func newCallTracker() *callTracker {
	return &callTracker{byItem: map[string]*pendingCall{}, byIndex: map[int64]*pendingCall{}}
}

func (t *callTracker) lookup(itemID string, outputIndex int64, create bool) *pendingCall {
	if call, ok := t.byItem[itemID]; ok && itemID != "" {
		return call
	}
	if call, ok := t.byIndex[outputIndex]; ok && (itemID == "" || call.itemID == "" || call.itemID == itemID) {
		if call.itemID == "" && itemID != "" {
			call.itemID = itemID
			t.byItem[itemID] = call
		}
		return call
	}
	if !create {
		return nil
	}
	call := &pendingCall{itemID: itemID}
	if itemID != "" {
		t.byItem[itemID] = call
	}
	t.byIndex[outputIndex] = call
	t.order = append(t.order, call)
	return call
}

func (p *Responses) run(callerCtx context.Context, params responses.ResponseNewParams, em *emitter) {
	callerCtx, span := tracing.Start(callerCtx, "llm call", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("gen_ai.system", ResponsesName), attribute.String("gen_ai.request.model", string(params.Model))))
	defer span.End()
	em.span = span
	ctx, resetIdle, stop := p.cfg.streamContext(callerCtx)
	defer stop()
	s := &responsesStream{
		em:    em,
		log:   p.cfg.logger().With("provider", ResponsesName, "model", params.Model),
		calls: newCallTracker(),
	}

	stream := p.service.NewStreaming(ctx, params)
	defer stream.Close()
	for stream.Next() {
		resetIdle()
		if !s.handleEvent(stream.Current()) {
			return
		}
	}
	if err := stream.Err(); err != nil {
		em.fail(streamFailure(ResponsesName, callerCtx, ctx, err))
		return
	}
	if callerCtx.Err() != nil {
		em.fail(streamFailure(ResponsesName, callerCtx, ctx, callerCtx.Err()))
		return
	}
	em.fail(&llm.ProviderError{Provider: ResponsesName, Code: "incomplete_stream", Message: "stream ended before response.completed"})
}

// responsesStream is what one Responses stream has seen so far: the
// function calls being assembled.
type responsesStream struct {
	em    *emitter
	log   *slog.Logger
	calls *callTracker
}

// handleEvent reports whether to read on: false once the response ended or
// failed, or the consumer is gone.
func (s *responsesStream) handleEvent(event responses.ResponseStreamEventUnion) bool {
	switch event.Type {
	case "response.output_text.delta", "response.refusal.delta":
		return event.Delta == "" || s.em.send(llm.Chunk{Type: llm.ChunkText, Delta: event.Delta})
	case "response.output_item.added":
		if event.Item.Type == "function_call" {
			s.calls.lookup(event.Item.ID, event.OutputIndex, true).learn(event.Item.Name, event.Item.CallID)
		}
	case "response.function_call_arguments.delta":
		s.calls.lookup(event.ItemID, event.OutputIndex, true).args.WriteString(event.Delta)
	case "response.function_call_arguments.done":
		call := s.calls.lookup(event.ItemID, event.OutputIndex, true)
		final := event.Arguments
		call.final = &final
		return s.emitCall(call)
	case "response.output_item.done":
		if event.Item.Type == "function_call" {
			return s.callItemDone(event.Item, event.OutputIndex)
		}
	case "response.completed", "response.incomplete":
		if event.Type == "response.incomplete" {
			s.log.Warn("response incomplete", "reason", event.Response.IncompleteDetails.Reason)
		}
		s.complete(event.Response)
		return false
	case "response.failed":
		respErr := event.Response.Error
		s.em.fail(&llm.ProviderError{Provider: ResponsesName, Code: string(respErr.Code), Message: orDefault(respErr.Message, "response failed")})
		return false
	case "error":
		s.em.fail(&llm.ProviderError{Provider: ResponsesName, Code: event.Code, Message: orDefault(event.Message, "error event in stream")})
		return false
	}
	return true
}

// callItemDone emits a finished function_call item; its arguments count only
// if no .done event gave them.
func (s *responsesStream) callItemDone(item responses.ResponseOutputItemUnion, outputIndex int64) bool {
	call := s.calls.lookup(item.ID, outputIndex, true)
	call.learn(item.Name, item.CallID)
	if call.final == nil {
		final := item.Arguments.OfString
		call.final = &final
	}
	return s.emitCall(call)
}

// complete emits the calls still pending, then the usage.
func (s *responsesStream) complete(resp responses.Response) {
	if !s.finishCalls(resp.Output) {
		return
	}
	usage := resp.Usage
	s.em.send(llm.Chunk{Type: llm.ChunkUsage, Usage: &llm.Usage{
		InputTokens:  int(usage.InputTokens),
		OutputTokens: int(usage.OutputTokens),
		TotalTokens:  int(usage.TotalTokens),
		// Reported as input_tokens_details.cached_tokens.
		CachedInputTokens: int(usage.InputTokensDetails.CachedTokens),
	}})
}

// emitCall sends a call once, as soon as its name is known.
func (s *responsesStream) emitCall(call *pendingCall) bool {
	if call.emitted || call.name == "" {
		return true
	}
	call.emitted = true
	args := call.arguments()
	if !json.Valid([]byte(args)) {
		s.log.Warn("tool call arguments are not valid JSON; passing them on raw", "tool", call.name, "bytes", len(args))
	}
	return s.em.send(llm.Chunk{Type: llm.ChunkTool, CallID: call.callID, ToolName: call.name, ArgsJSON: json.RawMessage(args)})
}

// finishCalls emits calls the stream never closed (and those only listed
// in the final response), in output order.
func (s *responsesStream) finishCalls(output []responses.ResponseOutputItemUnion) bool {
	for i, item := range output {
		if item.Type != "function_call" {
			continue
		}
		call := s.calls.lookup(item.ID, int64(i), true)
		call.learn(item.Name, item.CallID)
		if call.final == nil && item.Arguments.OfString != "" {
			final := item.Arguments.OfString
			call.final = &final
		}
	}
	for _, call := range s.calls.order {
		if !s.emitCall(call) {
			return false
		}
	}
	return true
}
