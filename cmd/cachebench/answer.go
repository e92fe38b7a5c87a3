package main

import (
	"strings"

	"regintel/shared/llm/llmtest"
)

// answerWords is the length of a scripted answer: a regulatory answer of
// a few paragraphs, as gpt-4.1-mini writes them.
const answerWords = 260

// answer scripts the model: an answer of answerWords words about the
// concept the question names, and a capture_concepts call naming it, in
// one response (as a model that answers before it calls the tool does).
func answer(req llmtest.RecordedRequest) llmtest.Script {
	question := req.LastUserMessage()
	c := benchConcepts[0]
	for _, candidate := range benchConcepts {
		if strings.Contains(question, candidate.label) {
			c = candidate
		}
	}
	var b strings.Builder
	b.WriteString("On the " + c.label + ": ")
	sentences := []string{
		"Revenue sets out who qualifies, and the conditions depend on your circumstances in the tax year. ",
		"The rates and limits in the facts above apply to the current year; earlier years may differ. ",
		"You claim it through myAccount, or through ROS if you file a Form 11, and keep your records for six years. ",
		"If your income or household changes during the year, review the claim so the amount stays right. ",
		"A qualified adviser or Revenue can confirm how it applies to you before you rely on it. ",
	}
	for i := 0; len(strings.Fields(b.String())) < answerWords; i++ {
		b.WriteString(sentences[i%len(sentences)])
	}
	args := map[string]any{"concepts": []map[string]any{{"domain": "TAX", "kind": c.kind, "jurisdiction": "IE", "prefLabel": c.label}}}
	return llmtest.Script{Steps: llmtest.Steps(llmtest.Words(b.String()), llmtest.ToolCallJSON("capture_concepts", args, 1))}
}

// answerTokens counts a call's output as the fake reports it: one token a
// delta (a word of the answer, a part of the tool call).
func answerTokens(req llmtest.RecordedRequest) int {
	return len(answer(req).Steps)
}
