package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"regintel/shared/llm"
)

// apiError is an OpenAI error response: {"error":{"message","type","param","code"}}.
type apiError struct {
	status  int
	errType string
	param   any // string or nil
	code    any // string or nil
	message string
}

func invalidRequest(param, message string) *apiError {
	return &apiError{status: http.StatusBadRequest, errType: "invalid_request_error", param: param, message: message}
}

func missingParameter(param string) *apiError {
	return &apiError{status: http.StatusBadRequest, errType: "invalid_request_error", param: param,
		code: "missing_required_parameter", message: fmt.Sprintf("Missing required parameter: '%s'.", param)}
}

// ToolsRefusedMessage is the error message of SetToolsRefused: what OpenAI
// answers when the model takes no tools.
const ToolsRefusedMessage = "Unsupported parameter: 'tools' is not supported with this model."

var errToolsRefused = &apiError{status: http.StatusBadRequest, errType: "invalid_request_error",
	param: "tools", code: "unsupported_parameter", message: ToolsRefusedMessage}

// wireItem is one Responses input item or one Chat message, with the fields
// of the tool loop.
type wireItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	// Responses function_call and function_call_output.
	CallID    *string         `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	// Chat: an assistant message's calls, and a tool message's call.
	ToolCalls []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID *string `json:"tool_call_id"`
}

// conversation is what the decoded items say: system text and messages.
type conversation struct {
	system   []string
	messages []llm.Message
}

func (c *conversation) add(role, text string) {
	if role == "system" || role == "developer" {
		c.system = append(c.system, text)
		return
	}
	c.messages = append(c.messages, llm.Message{Role: llm.Role(role), Content: text})
}

// decodeResponsesInput reads input items. An assistant message followed by
// function_call items becomes one assistant message with ToolCalls, as the
// client's llm.Message had it; a function_call_output is a RoleTool message.
// The pairing of calls and outputs is checked as the Responses API does.
func decodeResponsesInput(items []wireItem, conv *conversation) *apiError {
	called := map[string]bool{}
	var unanswered []string
	callsOpen := false // the last message is an assistant turn that calls may join
	for i, item := range items {
		switch item.Type {
		case "function_call":
			if item.CallID == nil || *item.CallID == "" {
				return missingParameter(fmt.Sprintf("input[%d].call_id", i))
			}
			if !callsOpen {
				conv.messages = append(conv.messages, llm.Message{Role: llm.RoleAssistant})
			}
			last := &conv.messages[len(conv.messages)-1]
			last.ToolCalls = append(last.ToolCalls, llm.ToolCall{ID: *item.CallID, Name: item.Name, ArgsJSON: json.RawMessage(item.Arguments)})
			called[*item.CallID] = true
			unanswered = append(unanswered, *item.CallID)
			callsOpen = true
		case "function_call_output":
			if item.CallID == nil || *item.CallID == "" {
				return missingParameter(fmt.Sprintf("input[%d].call_id", i))
			}
			if !called[*item.CallID] {
				return invalidRequest("input", fmt.Sprintf("No tool call found for function call output with call_id %s.", *item.CallID))
			}
			unanswered = remove(unanswered, *item.CallID)
			conv.messages = append(conv.messages, llm.Message{Role: llm.RoleTool, ToolCallID: *item.CallID, Content: contentText(item.Output)})
			callsOpen = false
		case "", "message":
			if item.Role == "" {
				return missingParameter(fmt.Sprintf("input[%d].role", i))
			}
			conv.add(item.Role, contentText(item.Content))
			callsOpen = item.Role == "assistant"
		default: // reasoning and other items carry no conversation text
			callsOpen = false
		}
	}
	if len(unanswered) > 0 {
		return invalidRequest("input", fmt.Sprintf("No tool output found for function call %s.", unanswered[0]))
	}
	return nil
}

// decodeChatMessages reads Chat messages and checks, as Chat Completions
// does, that the tool messages right after an assistant message with
// tool_calls answer each of its calls, and only those.
func decodeChatMessages(items []wireItem, conv *conversation) *apiError {
	var pending []string // calls of the last assistant message not yet answered
	pendingAt := 0
	inToolRun := false
	for i, item := range items {
		if item.Role == "" {
			return missingParameter(fmt.Sprintf("messages[%d].role", i))
		}
		if item.Role == "tool" {
			if item.ToolCallID == nil {
				return missingParameter(fmt.Sprintf("messages[%d].tool_call_id", i))
			}
			if !inToolRun || !slices.Contains(pending, *item.ToolCallID) {
				return invalidRequest(fmt.Sprintf("messages.[%d].role", i),
					"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.")
			}
			pending = remove(pending, *item.ToolCallID)
			conv.messages = append(conv.messages, llm.Message{Role: llm.RoleTool, ToolCallID: *item.ToolCallID, Content: contentText(item.Content)})
			continue
		}
		if err := unansweredCalls(pending, pendingAt); err != nil {
			return err
		}
		inToolRun = false
		conv.add(item.Role, contentText(item.Content))
		if item.Role == "assistant" && len(item.ToolCalls) > 0 {
			last := &conv.messages[len(conv.messages)-1]
			for j, call := range item.ToolCalls {
				if call.ID == "" {
					return missingParameter(fmt.Sprintf("messages[%d].tool_calls[%d].id", i, j))
				}
				last.ToolCalls = append(last.ToolCalls, llm.ToolCall{ID: call.ID, Name: call.Function.Name, ArgsJSON: json.RawMessage(call.Function.Arguments)})
				pending = append(pending, call.ID)
			}
			pendingAt, inToolRun = i, true
		}
	}
	return unansweredCalls(pending, pendingAt)
}

func unansweredCalls(pending []string, at int) *apiError {
	if len(pending) == 0 {
		return nil
	}
	return invalidRequest(fmt.Sprintf("messages.[%d].role", at),
		"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: "+strings.Join(pending, ", "))
}

func remove(ids []string, id string) []string {
	return slices.DeleteFunc(ids, func(candidate string) bool { return candidate == id })
}

// ToolOutputs are the tool outputs (RoleTool messages) the request carries.
func (r RecordedRequest) ToolOutputs() []llm.Message {
	var outputs []llm.Message
	for _, msg := range r.Messages {
		if msg.Role == llm.RoleTool {
			outputs = append(outputs, msg)
		}
	}
	return outputs
}

// ToolOutputsAfterLastUser are the tool outputs sent since the last user
// message: none on the first call of a turn, some once tools have run.
func (r RecordedRequest) ToolOutputsAfterLastUser() []llm.Message {
	var outputs []llm.Message
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role != llm.RoleUser; i-- {
		if r.Messages[i].Role == llm.RoleTool {
			outputs = append([]llm.Message{r.Messages[i]}, outputs...)
		}
	}
	return outputs
}
