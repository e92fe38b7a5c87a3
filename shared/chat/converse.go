package chat

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"

	"regintel/shared/concept"
	"regintel/shared/conversation"
	"regintel/shared/graph/write"
	"regintel/shared/llm"
	"regintel/shared/prompt"
)

// Tool modes (LLM_TOOLS).
const (
	// ToolsAuto offers the tools, and answers without them when the
	// endpoint refuses them.
	ToolsAuto = "auto"
	// ToolsOff offers no tools: answer-only, no concept capture.
	ToolsOff = "off"
)

// conversed is what the model produced over the turn's calls.
type conversed struct {
	answer    strings.Builder
	captured  []concept.Concept
	requested []conversation.RequestedItem
	// calculations are the turn's calculate calls, in order.
	calculations []calculation
	usage        llm.Usage
	callUsage    []llm.Usage // per model call
	calls        int
	err          error
	// interrupted: the client went away (a write failed or the request was
	// cancelled); the model is stopped and the turn is stored as such.
	interrupted bool
	// cut: the answer passed its bound (AnswerBoundMultiple); the model is
	// stopped, the client told, and the turn stored interrupted.
	cut       bool
	bound     answerBound
	stopModel context.CancelFunc
}

// toolsRefused remembers, for the life of the process, that the endpoint
// refused tools, so later turns do not pay for the refusal again.
type toolsRefused struct{ refused atomic.Bool }

// offersTools is whether this turn offers the model any tool.
func (t *Turn) offersTools() bool {
	e := t.e
	return e.cfg.Tools != ToolsOff && e.provider.SupportsTools() && !e.refused.refused.Load()
}

func (t *Turn) tools() []llm.Tool {
	if !t.offersTools() {
		return nil
	}
	tools := []llm.Tool{CaptureConceptsTool()}
	if t.offerRequestContext() {
		tools = append(tools, RequestContextTool())
	}
	if t.e.words != nil {
		tools = append(tools, LookupFactsTool())
	}
	if _, ok := t.e.seriesReader(); ok {
		tools = append(tools, CalculateTool())
	}
	return tools
}

// converse streams the answer through a bounded tool loop. A real endpoint
// ends its response after a function call and waits for the call's output,
// so when a response is only tool calls (no answer, no request_context),
// the calls' outputs go back and the next call's answer streams into the
// same sink.
// At most cfg.MaxModelCalls calls are made; usage is summed over them.
func (t *Turn) converse(ctx context.Context, sink Sink, fitted prompt.Fitted, tools []llm.Tool) *conversed {
	e := t.e
	request := ctx
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	out := &conversed{stopModel: stop, callUsage: []llm.Usage{},
		bound: answerBound{tokens: AnswerBoundMultiple * e.cfg.OutputAllowance}}
	defer func() {
		if errors.Is(request.Err(), context.Canceled) {
			out.interrupted = true
		}
	}()
	req := llm.Request{Model: e.cfg.Model, System: fitted.System, Messages: fitted.Messages, Tools: tools, Temperature: -1,
		CacheKey: promptCacheKey(e.cfg.PromptCacheSecret, t.req.TenantID, e.sheet), MaxOutputTokens: e.cfg.OutputAllowance}
	for out.calls < e.cfg.MaxModelCalls && !out.interrupted && !out.cut {
		out.calls++
		text, calls, err := t.call(ctx, sink, req, out)
		if err != nil && len(req.Tools) > 0 && text == "" && len(calls) == 0 && llm.IsToolsRefused(err) {
			t.log.Warn("the model endpoint refused tools; answering without them from now on", "provider", e.provider.Name())
			e.refused.refused.Store(true)
			t.warn("The model endpoint does not support tools: this answer was made without concept capture.")
			req.Tools = nil
			continue
		}
		if err != nil {
			out.err = err
			return out
		}
		// The loop goes on only for a response that called tools instead
		// of answering: capture_concepts after the answer needs no reply,
		// and request_context ends the turn.
		if len(calls) == 0 || text != "" || out.requested != nil {
			return out
		}
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, Content: text, ToolCalls: calls})
		for _, c := range calls {
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Content: t.toolOutput(ctx, c, out)})
		}
	}
	if out.answer.Len() == 0 {
		t.log.Warn("model call limit reached before an answer", "calls", out.calls)
		t.warn("The assistant reached its limit of model calls before answering; please ask again.")
	}
	return out
}

// promptCacheKey groups one tenant's requests on one sheet, whose
// instructions and tools open every request the same way. It is an HMAC
// with the deployment's secret: the provider never learns the tenant's id,
// and a guessed tenant id cannot be checked against a request's key.
func promptCacheKey(secret []byte, tenantID string, sheet *prompt.Sheet) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("regintel prompt cache\x00" + tenantID + "\x00" + sheet.Fingerprint()))
	return "pc-" + hex.EncodeToString(mac.Sum(nil)[:16])
}

// call makes one model call: text deltas go to the sink as they arrive,
// tool calls are collected (captured concepts and context requests are
// read at once). It returns the call's text and tool calls.
func (t *Turn) call(ctx context.Context, sink Sink, req llm.Request, out *conversed) (string, []llm.ToolCall, error) {
	chunks, err := t.e.provider.Stream(ctx, req)
	if err != nil {
		return "", nil, err
	}
	// The call's text is the end of the answer it wrote to (see takeText).
	callStart := out.answer.Len()
	callText := func() string { return out.answer.String()[callStart:] }
	var calls []llm.ToolCall
	var used llm.Usage
	usageArrived := false
	sent := func(err error) {
		if err != nil && !out.interrupted {
			// Nobody reads the rest: stop paying for it.
			t.log.Warn("client went away mid-stream; stopping the model", "err", err)
			out.interrupted = true
			out.stopModel()
		}
	}
	for {
		ch, ok, flushErr := next(chunks, sink)
		sent(flushErr)
		if !ok {
			// The answer's last words go out before the turn is stored.
			sent(flush(sink))
			break
		}
		switch ch.Type {
		case llm.ChunkText:
			t.takeText(ch.Delta, sink, out, sent)
		case llm.ChunkTool:
			calls = append(calls, ch.ToolCall())
			t.readToolCall(ctx, ch, out)
		case llm.ChunkUsage:
			if ch.Usage != nil {
				used = used.Plus(*ch.Usage)
				usageArrived = true
			}
		case llm.ChunkError:
			err = ch.Err
		}
	}
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if out.cut {
		// The model was stopped on purpose: how its stream ended is moot.
		err = nil
	}
	if !usageArrived {
		// Cut off before its end: counted by our estimate.
		used = t.estimateCall(req, callText(), calls)
	}
	out.usage = out.usage.Plus(used)
	out.callUsage = append(out.callUsage, used)
	return callText(), calls, err
}

// takeText takes a text delta into the answer and sends it, piece by
// piece, until the answer passes its bound.
func (t *Turn) takeText(delta string, sink Sink, out *conversed, sent func(error)) {
	for _, piece := range pieces(delta) {
		if out.cut {
			return // what the model sends after the cut is not read
		}
		if out.answer.Cap() == 0 {
			out.answer.Grow(answerSizeHint)
		}
		out.answer.WriteString(piece)
		t.answer.write(piece)
		sent(sink.Event(EventMessage, TextDelta{Text: piece}))
		t.checkBound(out)
	}
}

// answerSizeHint is the room an answer's text is given at its first
// words, so a usual answer grows its buffer once or not at all.
const answerSizeHint = 4 << 10

// checkBound stops the model once the answer passes its bound.
func (t *Turn) checkBound(out *conversed) {
	if out.cut || !out.bound.over(out.answer.String(), t.e.tokens.Count) {
		return
	}
	out.cut = true
	out.stopModel()
	t.log.Warn("the answer passed its length bound; the model is stopped and the turn stored as interrupted",
		"bound_tokens", out.bound.tokens, "answer_bytes", out.answer.Len())
	t.warn("The answer was cut at its length limit.")
}

// next receives the model's next chunk. When none is waiting it first
// flushes what the sink holds, so nothing sent waits on a slow model.
func next(chunks <-chan llm.Chunk, sink Sink) (llm.Chunk, bool, error) {
	select {
	case ch, ok := <-chunks:
		return ch, ok, nil
	default:
	}
	err := flush(sink)
	ch, ok := <-chunks
	return ch, ok, err
}

// readToolCall takes what a tool call carries: concepts, or a context request.
func (t *Turn) readToolCall(ctx context.Context, ch llm.Chunk, out *conversed) {
	switch {
	case ch.ToolName == CalculateToolName:
		out.calculations = append(out.calculations, t.runCalculation(ctx, ch.CallID, ch.ArgsJSON))
	case ch.ToolName == RequestContextToolName && t.offerRequestContext():
		items, err := parseRequestContext(ch.ArgsJSON)
		if err != nil {
			t.log.Warn("request_context arguments unusable; answering without a request", "err", err, "bytes", len(ch.ArgsJSON))
			return
		}
		out.requested = items
	case ch.ToolName == LookupFactsToolName:
		// Answered when the call's output is sent back (toolOutput).
	case ch.ToolName == concept.CaptureToolName:
		// Each entry is checked as the model wrote it, before an id is
		// computed from it: a rejected one leaves no trace but a count.
		concepts, skipped, rejected, err := concept.ParseCaptureChecked(ch.ArgsJSON, write.CheckCaptured)
		if err != nil {
			t.log.Warn("capture_concepts arguments malformed; skipping concept capture", "err", err, "bytes", len(ch.ArgsJSON))
			t.warn("Concept capture was skipped for part of this answer (the model's tool output was malformed).")
			return
		}
		if skipped > 0 || len(rejected) > 0 {
			t.log.Warn("capture_concepts entries left out", "skipped", skipped, "rejected", len(rejected))
		}
		out.captured = append(out.captured, concepts...)
		t.counts.captured += len(concepts) + len(rejected)
		t.counts.rejected += len(rejected)
	default:
		t.log.Warn("ignoring call to unknown tool", "tool", ch.ToolName)
	}
}

// toolOutput is what the model reads back for a call: a short
// acknowledgement, so it goes on to answer, a lookup's facts, or a
// calculation's trace.
func (t *Turn) toolOutput(ctx context.Context, c llm.ToolCall, out *conversed) string {
	var body map[string]any
	switch c.Name {
	case LookupFactsToolName:
		body = t.lookupOutput(ctx, string(c.ArgsJSON))
	case CalculateToolName:
		for _, made := range out.calculations {
			if made.callID == c.ID {
				return calculationOutput(made)
			}
		}
		body = map[string]any{"status": "error", "note": "The calculation was not made."}
	case concept.CaptureToolName:
		body = map[string]any{"status": "recorded", "note": "Concepts recorded. Now answer the user's question."}
	default:
		body = map[string]any{"status": "error", "note": "Unknown tool " + c.Name + "; answer without it."}
	}
	b, _ := json.Marshal(body)
	return string(b)
}
