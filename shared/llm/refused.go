package llm

import (
	"errors"
	"net/http"
	"regexp"
)

// toolsRefusedWordings are how endpoints say that a model or server takes no
// function tools. A request that is merely wrong about tools (an unknown
// call id, a bad schema) does not match: retrying without tools would hide
// that bug.
var toolsRefusedWordings = []*regexp.Regexp{
	// Ollama: "registry.ollama.ai/library/gemma3:4b does not support tools".
	regexp.MustCompile(`(?i)(does not|doesn't|do not|don't) support (tools|tool use|tool call|tool calling|function call|function calling|functions)\b`),
	// OpenAI: "Unsupported parameter: 'tools' is not supported with this model."
	regexp.MustCompile(`(?i)\b(tools|tool_choice|functions|function calling|tool calling|tool use)'? (is|are) not (supported|enabled|available|allowed)`),
	regexp.MustCompile(`(?i)unsupported (param|parameter|argument|field)s?:? '?(tools|tool_choice|functions)\b`),
	// Azure on an old API version: "Unrecognized request argument supplied: tools".
	regexp.MustCompile(`(?i)unrecogni[sz]ed request arguments? supplied:[^.]*\b(tools|tool_choice|functions)\b`),
	// OpenRouter: "No endpoints found that support tool use." or "...the provided 'tool_choice' value."
	regexp.MustCompile(`(?i)no endpoints found that support (tool use|the provided 'tool_choice')`),
	// vLLM: "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set".
	// llama.cpp: "tools param requires --jinja flag".
	regexp.MustCompile(`(?i)\b(tool choice|tool_choice|tools param|tools)\b[^.]{0,40}\brequires --`),
}

// IsToolsRefused reports whether err is an endpoint refusing tools: an HTTP
// 400, or the 404/422/500 some OpenAI-compatible servers send, whose message
// says tools, functions or tool_choice are unsupported. The caller may then
// ask again answer-only, without tools.
func IsToolsRefused(err error) bool {
	var perr *ProviderError
	if !errors.As(err, &perr) {
		return false
	}
	switch perr.StatusCode {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusUnprocessableEntity, http.StatusInternalServerError:
	default:
		return false
	}
	texts := []string{perr.Message}
	if perr.Err != nil {
		texts = append(texts, perr.Err.Error()) // the raw body, when the message field was not parsed
	}
	for _, text := range texts {
		for _, wording := range toolsRefusedWordings {
			if wording.MatchString(text) {
				return true
			}
		}
	}
	return false
}
