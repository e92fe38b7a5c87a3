package offline

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"regintel/shared/llm"
	"regintel/shared/prompt"
)

func kinds(concepts []Concept) string {
	var parts []string
	for _, c := range concepts {
		parts = append(parts, c.Domain+":"+c.Jurisdiction+":"+c.Kind)
	}
	return strings.Join(parts, ",")
}

func TestRecognise(t *testing.T) {
	cases := []struct{ question, want string }{
		{"What VAT rate applies to restaurant food?", "TAX:IE:VAT"},
		{"Do I pay VRT and VAT on a car imported from Japan?", "VEHICLE_REG:IE:VRT,TAX:IE:VAT"},
		{"How is UK VAT different from VAT in Ireland?", "TAX:UK:VAT,TAX:IE:VAT"},
		{"my cat likes the vat in the garden", ""}, // acronyms are case-sensitive
		{"Does PRSI or USC apply to my pension, and what about CGT?", "SOCIAL_WELFARE:IE:PRSI,TAX:IE:USC,TAX:IE:CGT"},
		{"Is carbon tax charged on home heating oil?", "TAX:IE:CARBON_TAX"},
		{"CAT on an inheritance from my aunt; stamp duty on the house", "TAX:IE:CAT,TAX:IE:STAMP_DUTY"},
		{"Can I get Jobseeker\u2019s Benefit while on PAYE?", "SOCIAL_WELFARE:IE:JOBSEEKERS_BENEFIT,TAX:IE:PAYE"},
		{"When can I get the state pension? And corporation tax for my company?", "PENSIONS:IE:STATE_PENSION_CONTRIBUTORY,TAX:IE:CORPORATION_TAX"},
		{"VAT, VAT and more VAT", "TAX:IE:VAT"},
		{"Hello there", ""},
	}
	for _, tc := range cases {
		if got := kinds(Recognise(tc.question)); got != tc.want {
			t.Errorf("Recognise(%q) = %q, want %q", tc.question, got, tc.want)
		}
	}
}

func TestLexiconEntriesAreComplete(t *testing.T) {
	for _, e := range defaultLexicon.entries {
		if e.Domain == "" || e.Kind == "" || e.Jurisdiction == "" || e.PrefLabel == "" || e.Definition == "" || len(e.AltLabels) == 0 {
			t.Errorf("incomplete lexicon entry %+v", e.Concept)
		}
		if len(e.Acronyms)+len(e.Phrases) == 0 {
			t.Errorf("entry %s has no terms to match", e.PrefLabel)
		}
	}
}

func drain(t *testing.T, ch <-chan llm.Chunk) []llm.Chunk {
	t.Helper()
	var chunks []llm.Chunk
	deadline := time.After(5 * time.Second)
	for {
		select {
		case c, ok := <-ch:
			if !ok {
				return chunks
			}
			chunks = append(chunks, c)
		case <-deadline:
			t.Fatal("stream did not end")
		}
	}
}

var captureTool = llm.Tool{Name: CaptureConceptsTool, Parameters: map[string]any{"type": "object"}}

// streamed splits a stream into its text, tool chunks and last chunk,
// failing on an error chunk.
func streamed(t *testing.T, chunks []llm.Chunk) (text string, textChunks int, tools []llm.Chunk) {
	t.Helper()
	var b strings.Builder
	for _, c := range chunks {
		switch c.Type {
		case llm.ChunkText:
			b.WriteString(c.Delta)
			textChunks++
		case llm.ChunkTool:
			tools = append(tools, c)
		case llm.ChunkError:
			t.Fatalf("error chunk: %v", c.Err)
		}
	}
	if last := chunks[len(chunks)-1]; last.Type != llm.ChunkUsage || last.Usage.TotalTokens == 0 {
		t.Fatalf("last chunk = %+v, want usage", last)
	}
	return b.String(), textChunks, tools
}

// Like a real tool-using model: the first call only calls capture_concepts
// and ends; the call that carries the tool output gets the answer.
func TestToolLoopCaptureThenAnswer(t *testing.T) {
	p := New(Config{})
	req := llm.Request{
		System: "system prompt",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "What is CGT?"}, // history must not be captured
			{Role: llm.RoleAssistant, Content: "An answer."},
			{Role: llm.RoleUser, Content: "Do I pay VRT on an imported car? My PPSN is 1234567T."},
		},
		Tools: []llm.Tool{captureTool},
	}
	first := drain(t, mustStream(t, p, req))
	text, _, tools := streamed(t, first)
	if text != "" || len(tools) != 1 || tools[0].ToolName != CaptureConceptsTool || tools[0].CallID == "" {
		t.Fatalf("first call: text %q, tools %+v; want one capture_concepts call with an id and no text", text, tools)
	}
	var args struct {
		Concepts []Concept `json:"concepts"`
	}
	if err := json.Unmarshal(tools[0].ArgsJSON, &args); err != nil {
		t.Fatal(err)
	}
	if kinds(args.Concepts) != "VEHICLE_REG:IE:VRT" || args.Concepts[0].PrefLabel != "Vehicle Registration Tax" || args.Concepts[0].Definition == "" {
		t.Fatalf("concepts = %+v", args.Concepts)
	}
	// Deterministic: the same request gives the same call.
	again := drain(t, mustStream(t, p, req))
	if len(again) != len(first) || again[0].CallID != first[0].CallID || string(again[0].ArgsJSON) != string(first[0].ArgsJSON) {
		t.Fatalf("second run gave %+v, first %+v", again, first)
	}

	req.Messages = append(req.Messages,
		llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{tools[0].ToolCall()}},
		llm.Message{Role: llm.RoleTool, ToolCallID: tools[0].CallID, Content: `{"captured":1}`})
	answer, textChunks, tools := streamed(t, drain(t, mustStream(t, p, req)))
	if len(tools) != 0 {
		t.Fatalf("answer call made tool calls %+v", tools)
	}
	if !strings.Contains(answer, "offline model") || !strings.Contains(answer, "Vehicle Registration Tax (IE)") {
		t.Fatalf("answer does not say it is offline or name the term: %q", answer)
	}
	if strings.Contains(answer, "1234567T") || strings.Contains(answer, "Capital Gains") {
		t.Fatalf("answer echoes user text or history: %q", answer)
	}
	if textChunks < 10 {
		t.Fatalf("answer came in %d chunks, want word by word", textChunks)
	}
}

// A tool output from an earlier turn does not count: a new question starts
// a new loop.
func TestNewQuestionCallsTheToolAgain(t *testing.T) {
	req := llm.Request{Tools: []llm.Tool{captureTool}, Messages: []llm.Message{
		{Role: llm.RoleUser, Content: "What is VAT?"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_offline_1", Name: CaptureConceptsTool, ArgsJSON: json.RawMessage(`{}`)}}},
		{Role: llm.RoleTool, ToolCallID: "call_offline_1", Content: "ok"},
		{Role: llm.RoleAssistant, Content: "An answer."},
		{Role: llm.RoleUser, Content: "And USC?"},
	}}
	text, _, tools := streamed(t, drain(t, mustStream(t, New(Config{}), req)))
	if text != "" || len(tools) != 1 || tools[0].CallID == "call_offline_1" {
		t.Fatalf("text %q, tools %+v; want one new capture_concepts call", text, tools)
	}
}

func TestNoCaptureWithoutToolOrTerms(t *testing.T) {
	p := New(Config{})
	for _, req := range []llm.Request{
		{Messages: []llm.Message{{Role: llm.RoleUser, Content: "What is VAT?"}}},                                  // tool not offered
		{Messages: []llm.Message{{Role: llm.RoleUser, Content: "Hello"}}, Tools: []llm.Tool{captureTool}},         // nothing recognised
		{Messages: []llm.Message{{Role: llm.RoleUser, Content: "VAT?"}}, Tools: []llm.Tool{{Name: "other_tool"}}}, // other tool only
	} {
		for _, c := range drain(t, mustStream(t, p, req)) {
			if c.Type == llm.ChunkTool || c.Type == llm.ChunkError {
				t.Fatalf("unexpected %s chunk for %q", c.Type, req.Messages[0].Content)
			}
		}
	}
}

func TestCancellationStopsStream(t *testing.T) {
	p := New(Config{WordDelay: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	ch := mustStreamCtx(t, ctx, p, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "VAT"}}})
	<-ch
	cancel()
	rest := drain(t, ch)
	for _, c := range rest {
		if c.Type == llm.ChunkTool || c.Type == llm.ChunkUsage {
			t.Fatalf("got %s chunk after cancellation", c.Type)
		}
	}
	if len(rest) > 3 {
		t.Fatalf("%d chunks after cancellation", len(rest))
	}
}

func TestWordDelay(t *testing.T) {
	p := New(Config{WordDelay: 5 * time.Millisecond})
	start := time.Now()
	chunks := drain(t, mustStream(t, p, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}))
	if elapsed := time.Since(start); elapsed < time.Duration(len(chunks)-1)*5*time.Millisecond {
		t.Fatalf("%d chunks in %v: word delay not applied", len(chunks), elapsed)
	}
}

func mustStream(t *testing.T, p *Provider, req llm.Request) <-chan llm.Chunk {
	return mustStreamCtx(t, context.Background(), p, req)
}

func mustStreamCtx(t *testing.T, ctx context.Context, p *Provider, req llm.Request) <-chan llm.Chunk {
	t.Helper()
	ch, err := p.Stream(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// The offline answer repeats the graph's facts that the prompt carried.
func TestAnswerQuotesTheGraphFactsOfThePrompt(t *testing.T) {
	facts := "Facts from the rules graph for this question...\n<graph_facts>\nValue-Added Tax:\n- Rate: Irish VAT standard rate (percent: 23); source: https://www.revenue.ie/ [TAX:IE:VAT:RATE:STANDARD]\n</graph_facts>"
	concepts := "<conversation_context>\n- In addition to VAT\n</conversation_context>"
	chunks, err := New(Config{}).Stream(context.Background(), llm.Request{System: "You are...", Messages: []llm.Message{
		{Role: llm.RoleUser, Content: facts}, {Role: llm.RoleUser, Content: concepts}, {Role: llm.RoleUser, Content: "What is the VAT rate?"}}})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for ch := range chunks {
		text.WriteString(ch.Delta)
	}
	if !strings.Contains(text.String(), "The rules graph holds: Rate: Irish VAT standard rate (percent: 23); source: https://www.revenue.ie/ [TAX:IE:VAT:RATE:STANDARD].") {
		t.Fatalf("answer: %s", text.String())
	}
	if strings.Contains(text.String(), "In addition") {
		t.Fatal("quoted past the facts section")
	}
}

// The as-of date that opens the sheet's graph_facts section is not a fact:
// the offline answer quotes the fact lines only.
func TestAnswerDoesNotQuoteTheAsOfDateAsAFact(t *testing.T) {
	turn, err := prompt.DefaultSheet().TurnContext(prompt.Data{AsOf: prompt.AsOfLine{Date: "2023-07-01", Phrase: "in 2023"},
		Facts: []prompt.FactGroup{{ConceptID: "TAX:IE:VAT", Concept: "Value-Added Tax", Facts: []prompt.FactLine{
			{NodeID: "TAX:IE:VAT:RATE:STANDARD", Kind: "Rate", Label: "Irish VAT standard rate", Value: "percent: 23"}}}}})
	if err != nil || len(turn) != 1 || !strings.Contains(turn[0].Text, "These facts are for 2023-07-01") {
		t.Fatalf("sheet rendered %+v, %v", turn, err)
	}
	chunks, err := New(Config{}).Stream(context.Background(), llm.Request{System: "You are...", Messages: []llm.Message{
		{Role: llm.RoleUser, Content: turn[0].Text}, {Role: llm.RoleUser, Content: "What was the VAT rate in 2023?"}}})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for ch := range chunks {
		text.WriteString(ch.Delta)
	}
	if !strings.Contains(text.String(), "The rules graph holds: Rate: Irish VAT standard rate (percent: 23) [TAX:IE:VAT:RATE:STANDARD].") ||
		strings.Contains(text.String(), "These facts are for") || strings.Contains(text.String(), "2023-07-01") {
		t.Fatalf("answer: %s", text.String())
	}
}
