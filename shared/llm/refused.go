package llm

import (
	"errors"
	"net/http"
	"regexp"
)

// toolsRefusedWording matches what endpoints say when a model or server does
// not take function tools: OpenAI ("'tools' is not supported with this
// model"), Azure ("Unrecognized request argument supplied: tools"), Ollama
// ("does not support tools"), vLLM ("auto" tool choice requires
// --enable-auto-tool-choice), llama.cpp ("tools param requires --jinja"),
// OpenRouter ("No endpoints found that support tool use").
var toolsRefusedWording = regexp.MustCompile(`(?i)` +
	`(does not support|doesn't support|not supported|unsupported|unrecognized|unknown|not allowed|not enabled|no endpoints? found that supports?|requires).{0,80}\b(tools?|tool[ _]use|tool[ _]calls?|tool[ _]calling|tool_choice|functions?|function[ _]calling)\b` +
	`|\b(tools?|tool[ _]use|tool[ _]calls?|tool[ _]calling|tool_choice|functions?|function[ _]calling)\b.{0,80}(not supported|unsupported|not allowed|not enabled|requires|is not available|are not available)`)

// IsToolsRefused reports whether err is an endpoint refusing tools: an HTTP
// 400, or the 404/422/500 some OpenAI-compatible servers send, whose message
// says tools, functions or tool_choice are unsupported. The caller may then
// retry answer-only (without tools).
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
	if toolsRefusedWording.MatchString(perr.Message) {
		return true
	}
	return perr.Err != nil && toolsRefusedWording.MatchString(perr.Err.Error())
}
