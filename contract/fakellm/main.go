// Command fakellm is the model of the contract tests: the llmtest fake
// OpenAI server on a port, answering by what the question asks for, so the
// built chat binary can be driven by real clients without a real model.
// It prints its base URL, then serves until it is stopped.
//
//	[fail]     some text, then a mid-stream error
//	[fail-once] the same failure the first time the question is asked;
//	           asked again (a retry), the short answer
//	[slow]     a long answer, slowly (to be stopped mid-stream)
//	[resume]   ResumeAnswer, over about three seconds (to reload mid-answer)
//	[context]  asks for context (request_context) until the conversation
//	           holds the supplied marker "52000"
//	otherwise  a short answer that quotes the question, word by word
package main

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"regintel/shared/llm/llmtest"
)

// ResumeAnswer is the answer to a [resume] question; the contract test
// expects it on the page once, whole.
const ResumeAnswer = "The resumed answer goes on. The resumed answer goes on. The resumed answer goes on. " +
	"The resumed answer goes on. The resumed answer goes on. The resumed answer goes on. " +
	"The resumed answer goes on. The resumed answer goes on. The resumed answer goes on. " +
	"The resumed answer goes on. The resumed answer goes on. The resumed answer goes on. "

func main() {
	srv := llmtest.NewUnstartedServer()
	srv.SetResponder(respond)
	srv.Start()
	defer srv.Close()
	fmt.Println(srv.BaseURL())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
}

// failedOnce holds the [fail-once] questions already failed.
var failedOnce = struct {
	sync.Mutex
	questions map[string]bool
}{questions: map[string]bool{}}

// firstTime reports whether question is asked for the first time, and
// remembers it.
func firstTime(question string) bool {
	failedOnce.Lock()
	defer failedOnce.Unlock()
	seen := failedOnce.questions[question]
	failedOnce.questions[question] = true
	return !seen
}

func respond(req llmtest.RecordedRequest) llmtest.Script {
	question := req.LastUserMessage()
	// Slow enough that a browser renders the text in several steps.
	delay := 50 * time.Millisecond
	switch {
	case strings.Contains(question, "[fail]"),
		strings.Contains(question, "[fail-once]") && firstTime(question):
		return llmtest.Script{DeltaDelay: delay, Steps: llmtest.Steps(
			llmtest.Words("This answer starts well but "), llmtest.StreamError("server_error", "the model failed"))}
	case strings.Contains(question, "[slow]"):
		return llmtest.Script{DeltaDelay: 100 * time.Millisecond, Steps: llmtest.Words(strings.Repeat("A long and careful answer. ", 100))}
	case strings.Contains(question, "[resume]"):
		return llmtest.Script{DeltaDelay: 40 * time.Millisecond, Steps: llmtest.Words(ResumeAnswer)}
	case strings.Contains(question, "[context]") && !mentions(req, "52000"):
		return llmtest.Script{Steps: llmtest.Steps(llmtest.Words("I need your income first. "),
			llmtest.ToolCallJSON("request_context", map[string]any{"items": []map[string]any{
				{"key": "annual_income", "description": "Your gross income for 2024", "kind": "profile_fact", "required": true},
			}}, 2))}
	}
	return llmtest.Script{DeltaDelay: delay, Steps: llmtest.Words("You asked: " + question + ". The standard VAT rate in Ireland is 23%.")}
}

// mentions reports whether any message of the request contains s.
func mentions(req llmtest.RecordedRequest, s string) bool {
	for _, m := range req.Messages {
		if strings.Contains(m.Content, s) {
			return true
		}
	}
	return false
}
