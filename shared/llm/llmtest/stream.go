package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// object is a JSON object that keeps its field order, so events read like
// OpenAI's documented examples ("type" first).
type object []field

type field struct {
	key   string
	value any
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(f.key)
		b.Write(key)
		b.WriteByte(':')
		value, err := json.Marshal(f.value)
		if err != nil {
			return nil, err
		}
		b.Write(value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

var idCounter atomic.Int64

// newID makes an OpenAI-looking id ("resp_...", "msg_...", "fc_...",
// "call_...", "chatcmpl-...").
func newID(prefix string) string {
	separator := "_"
	if prefix == "chatcmpl" {
		separator = "-"
	}
	return fmt.Sprintf("%s%s%016x%08x", prefix, separator, time.Now().UnixNano(), idCounter.Add(1))
}

// streamPlayer writes one scripted stream.
type streamPlayer struct {
	w       http.ResponseWriter
	flusher http.Flusher
	req     *http.Request
	rec     RecordedRequest
	script  Script
	model   string
	seq     int64 // Responses sequence_number
	deltas  int   // deltas sent, for the derived usage
}

func newStreamPlayer(w http.ResponseWriter, r *http.Request, rec RecordedRequest, script Script) *streamPlayer {
	flusher, _ := w.(http.Flusher)
	model := script.ResponseModel
	if model == "" {
		model = rec.Model
	}
	return &streamPlayer{w: w, flusher: flusher, req: r, rec: rec, script: script, model: model}
}

func (p *streamPlayer) startStream() {
	h := p.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Request-Id", newID("req"))
	p.w.WriteHeader(http.StatusOK)
	p.flush()
}

func (p *streamPlayer) flush() {
	if p.flusher != nil {
		p.flusher.Flush()
	}
}

// wait sleeps d unless the client goes away; false means stop streaming.
func (p *streamPlayer) wait(d time.Duration) bool {
	if d <= 0 {
		return p.req.Context().Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-p.req.Context().Done():
		return false
	}
}

func (p *streamPlayer) beforeDelta() bool {
	p.deltas++
	return p.wait(p.script.DeltaDelay)
}

func (p *streamPlayer) usage() Usage {
	if p.script.Usage != nil {
		return *p.script.Usage
	}
	return Usage{InputTokens: len(p.rec.Body)/4 + 1, OutputTokens: p.deltas}
}

// ---- Responses API ----

// sendEvent writes `event: TYPE\ndata: {...}\n\n` with type and sequence_number
// leading the payload, as the API does.
func (p *streamPlayer) sendEvent(eventType string, fields ...field) bool {
	payload := append(object{{"type", eventType}}, fields...)
	payload = append(payload, field{"sequence_number", p.seq})
	p.seq++
	data, err := json.Marshal(payload)
	if err != nil {
		return false
	}
	if _, err := fmt.Fprintf(p.w, "event: %s\ndata: %s\n\n", eventType, data); err != nil {
		return false
	}
	p.flush()
	return true
}

func (p *streamPlayer) responseObject(id, status string, createdAt int64, output []any, usage any, respErr any) object {
	if output == nil {
		output = []any{}
	}
	var instructions any
	if p.rec.System != "" {
		instructions = p.rec.System
	}
	tools := make([]any, 0, len(p.rec.Tools))
	for _, tool := range p.rec.Tools {
		tools = append(tools, object{
			{"type", "function"}, {"description", tool.Description}, {"name", tool.Name},
			{"parameters", tool.Parameters}, {"strict", false},
		})
	}
	temperature := 1.0
	if p.rec.Temperature != nil {
		temperature = *p.rec.Temperature
	}
	return object{
		{"id", id}, {"object", "response"}, {"created_at", createdAt}, {"status", status},
		{"background", false}, {"error", respErr}, {"incomplete_details", nil},
		{"instructions", instructions}, {"max_output_tokens", nil}, {"model", p.model},
		{"output", output}, {"parallel_tool_calls", true}, {"previous_response_id", nil},
		{"reasoning", object{{"effort", nil}, {"summary", nil}}}, {"store", false},
		{"temperature", temperature}, {"text", object{{"format", object{{"type", "text"}}}}},
		{"tool_choice", "auto"}, {"tools", tools}, {"top_p", 1.0}, {"truncation", "disabled"},
		{"usage", usage}, {"user", nil}, {"metadata", object{}},
	}
}

func outputText(text string) object {
	return object{{"type", "output_text"}, {"annotations", []any{}}, {"logprobs", []any{}}, {"text", text}}
}

func messageItem(id, status string, content []any) object {
	return object{{"id", id}, {"type", "message"}, {"status", status}, {"content", content}, {"role", "assistant"}}
}

func functionCallItem(id, callID, name, args, status string) object {
	return object{{"id", id}, {"type", "function_call"}, {"status", status}, {"arguments", args}, {"call_id", callID}, {"name", name}}
}

func (p *streamPlayer) playResponses() {
	responseID := newID("resp")
	createdAt := time.Now().Unix()
	p.startStream()
	if !p.sendEvent("response.created", field{"response", p.responseObject(responseID, "in_progress", createdAt, nil, nil, nil)}) ||
		!p.sendEvent("response.in_progress", field{"response", p.responseObject(responseID, "in_progress", createdAt, nil, nil, nil)}) {
		return
	}
	var output []any
	steps := p.script.Steps
	for i := 0; i < len(steps); i++ {
		step := steps[i]
		outputIndex := len(output)
		switch step.Kind {
		case StepText:
			// Consecutive text steps are one message item.
			end := i
			for end+1 < len(steps) && steps[end+1].Kind == StepText {
				end++
			}
			item, ok := p.playResponsesMessage(outputIndex, steps[i:end+1])
			if !ok {
				return
			}
			output = append(output, item)
			i = end
		case StepToolCall:
			item, ok := p.playResponsesToolCall(outputIndex, step)
			if !ok {
				return
			}
			output = append(output, item)
		case StepError:
			p.sendEvent("error", field{"code", orDefault(step.ErrorCode, "server_error")},
				field{"message", orDefault(step.ErrorMessage, "The server had an error while processing your request.")},
				field{"param", nil})
			return
		case StepFailed:
			respErr := object{{"code", orDefault(step.ErrorCode, "server_error")}, {"message", orDefault(step.ErrorMessage, "The model failed to generate a response.")}}
			p.sendEvent("response.failed", field{"response", p.responseObject(responseID, "failed", createdAt, output, nil, respErr)})
			return
		case StepDisconnect:
			return
		case StepPause:
			if !p.wait(step.Pause) {
				return
			}
		}
	}
	usage := p.usage()
	usageObject := object{
		{"input_tokens", usage.InputTokens}, {"input_tokens_details", object{{"cached_tokens", usage.CachedInputTokens}}},
		{"output_tokens", usage.OutputTokens}, {"output_tokens_details", object{{"reasoning_tokens", 0}}},
		{"total_tokens", usage.InputTokens + usage.OutputTokens},
	}
	p.sendEvent("response.completed", field{"response", p.responseObject(responseID, "completed", createdAt, output, usageObject, nil)})
}

func (p *streamPlayer) playResponsesMessage(outputIndex int, steps []Step) (object, bool) {
	itemID := newID("msg")
	if !p.sendEvent("response.output_item.added", field{"output_index", outputIndex}, field{"item", messageItem(itemID, "in_progress", []any{})}) ||
		!p.sendEvent("response.content_part.added", field{"item_id", itemID}, field{"output_index", outputIndex},
			field{"content_index", 0}, field{"part", outputText("")}) {
		return nil, false
	}
	var text strings.Builder
	for _, step := range steps {
		if !p.beforeDelta() {
			return nil, false
		}
		text.WriteString(step.Text)
		if !p.sendEvent("response.output_text.delta", field{"item_id", itemID}, field{"output_index", outputIndex},
			field{"content_index", 0}, field{"delta", step.Text}, field{"logprobs", []any{}}) {
			return nil, false
		}
	}
	full := text.String()
	item := messageItem(itemID, "completed", []any{outputText(full)})
	ok := p.sendEvent("response.output_text.done", field{"item_id", itemID}, field{"output_index", outputIndex},
		field{"content_index", 0}, field{"text", full}, field{"logprobs", []any{}}) &&
		p.sendEvent("response.content_part.done", field{"item_id", itemID}, field{"output_index", outputIndex},
			field{"content_index", 0}, field{"part", outputText(full)}) &&
		p.sendEvent("response.output_item.done", field{"output_index", outputIndex}, field{"item", item})
	return item, ok
}

func (p *streamPlayer) playResponsesToolCall(outputIndex int, step Step) (object, bool) {
	itemID, callID := newID("fc"), step.callID()
	if !p.sendEvent("response.output_item.added", field{"output_index", outputIndex},
		field{"item", functionCallItem(itemID, callID, step.ToolName, "", "in_progress")}) {
		return nil, false
	}
	for _, part := range splitParts(step.ToolArgs, step.ToolParts) {
		if !p.beforeDelta() {
			return nil, false
		}
		if !p.sendEvent("response.function_call_arguments.delta", field{"item_id", itemID},
			field{"output_index", outputIndex}, field{"delta", part}) {
			return nil, false
		}
	}
	item := functionCallItem(itemID, callID, step.ToolName, step.ToolArgs, "completed")
	ok := p.sendEvent("response.function_call_arguments.done", field{"item_id", itemID},
		field{"output_index", outputIndex}, field{"arguments", step.ToolArgs}) &&
		p.sendEvent("response.output_item.done", field{"output_index", outputIndex}, field{"item", item})
	return item, ok
}

// callID is the scripted call id, or a fresh one.
func (s Step) callID() string {
	if s.CallID != "" {
		return s.CallID
	}
	return newID("call")
}

func orDefault(value, fallback string) string {
	if value == "" {
		return fallback
	}
	return value
}

// ---- Chat Completions API ----

type chatStream struct {
	p       *streamPlayer
	id      string
	created int64
}

// sendData writes one `data: {...}\n\n` line.
func (p *streamPlayer) sendData(payload any) bool {
	data, err := json.Marshal(payload)
	if err != nil {
		return false
	}
	if _, err := fmt.Fprintf(p.w, "data: %s\n\n", data); err != nil {
		return false
	}
	p.flush()
	return true
}

// chunk sends a chat.completion.chunk with one choice (or none when choice is nil).
func (c *chatStream) chunk(choice any, usage any) bool {
	choices := []any{}
	if choice != nil {
		choices = append(choices, choice)
	}
	payload := object{
		{"id", c.id}, {"object", "chat.completion.chunk"}, {"created", c.created}, {"model", c.p.model},
		{"system_fingerprint", "fp_fake"}, {"choices", choices},
	}
	if c.p.rec.IncludeUsage {
		payload = append(payload, field{"usage", usage})
	}
	return c.p.sendData(payload)
}

func chatChoice(delta object, finishReason any) object {
	return object{{"index", 0}, {"delta", delta}, {"logprobs", nil}, {"finish_reason", finishReason}}
}

func (p *streamPlayer) playChat() {
	c := &chatStream{p: p, id: newID("chatcmpl"), created: time.Now().Unix()}
	p.startStream()
	if !c.chunk(chatChoice(object{{"role", "assistant"}, {"content", ""}, {"refusal", nil}}, nil), nil) {
		return
	}
	toolIndex := 0
	for _, step := range p.script.Steps {
		switch step.Kind {
		case StepText:
			if !p.beforeDelta() || !c.chunk(chatChoice(object{{"content", step.Text}}, nil), nil) {
				return
			}
		case StepToolCall:
			if !c.toolCall(toolIndex, step) {
				return
			}
			toolIndex++
		case StepError, StepFailed:
			p.sendData(object{{"error", object{
				{"message", orDefault(step.ErrorMessage, "The server had an error while processing your request.")},
				{"type", "server_error"}, {"param", nil}, {"code", orDefault(step.ErrorCode, "server_error")},
			}}})
			return
		case StepDisconnect:
			return
		case StepPause:
			if !p.wait(step.Pause) {
				return
			}
		}
	}
	finishReason := "stop"
	if toolIndex > 0 {
		finishReason = "tool_calls"
	}
	c.finish(finishReason)
}

// toolCall streams one call as deltas at index: the first carries id, type
// and name; later ones only arguments.
func (c *chatStream) toolCall(index int, step Step) bool {
	for i, part := range splitParts(step.ToolArgs, step.ToolParts) {
		if !c.p.beforeDelta() {
			return false
		}
		call := object{{"index", index}}
		if i == 0 {
			call = append(call, field{"id", step.callID()}, field{"type", "function"},
				field{"function", object{{"name", step.ToolName}, {"arguments", part}}})
		} else {
			call = append(call, field{"function", object{{"arguments", part}}})
		}
		if !c.chunk(chatChoice(object{{"tool_calls", []any{call}}}, nil), nil) {
			return false
		}
	}
	return true
}

// finish sends the finish_reason chunk, the usage chunk when the request
// asked for it, and [DONE].
func (c *chatStream) finish(finishReason string) {
	p := c.p
	if !c.chunk(chatChoice(object{}, finishReason), nil) {
		return
	}
	if p.rec.IncludeUsage {
		usage := p.usage()
		if !c.chunk(nil, object{
			{"prompt_tokens", usage.InputTokens}, {"completion_tokens", usage.OutputTokens},
			{"total_tokens", usage.InputTokens + usage.OutputTokens},
			{"prompt_tokens_details", object{{"cached_tokens", usage.CachedInputTokens}, {"audio_tokens", 0}}},
			{"completion_tokens_details", object{{"reasoning_tokens", 0}, {"audio_tokens", 0},
				{"accepted_prediction_tokens", 0}, {"rejected_prediction_tokens", 0}}},
		}) {
			return
		}
	}
	fmt.Fprint(p.w, "data: [DONE]\n\n")
	p.flush()
}
