package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"regintel/shared/conversation"
	convpg "regintel/shared/conversation/postgres"
	"regintel/shared/llm"
	"regintel/shared/llm/llmtest"
	"regintel/shared/pgpool"
)

func TestTwoTurnsCarryConceptsAndHistory(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.llm.Enqueue(llmtest.Script{Steps: llmtest.Steps(
		llmtest.Words("VRT is charged when a vehicle is registered in Ireland."),
		llmtest.ToolCallJSON("capture_concepts", captureArgs(vrtConcept()), 5),
	)})
	first := e.chat(map[string]any{"message": "How is VRT calculated on an imported car?", "profile": map[string]any{"jurisdictions": []string{"IE"}}}, nil)
	if first.Status != 200 {
		t.Fatalf("turn 1: %d %s", first.Status, first.Body)
	}
	m1 := first.metadata(t)
	if m1.ConversationID == nil || m1.TurnNumber == nil || *m1.TurnNumber != 1 {
		t.Fatalf("turn 1 metadata: %+v", m1)
	}
	if !slices.Equal(m1.ReferencedNodes, []string{"TAX:IE:VRT"}) {
		t.Fatalf("referencedNodes = %v", m1.ReferencedNodes)
	}
	if got := first.text(); got != "VRT is charged when a vehicle is registered in Ireland." {
		t.Fatalf("streamed text = %q", got)
	}
	if strings.Contains(first.Body, "capture_concepts") || strings.Contains(first.Body, "altLabels") {
		t.Fatal("tool call leaked into the client stream")
	}

	e.llm.Enqueue(llmtest.TextScript("It depends on the open market selling price."))
	second := e.chat(map[string]any{"conversationId": *m1.ConversationID, "message": "And for a used one?"}, nil)
	if m2 := second.metadata(t); m2.TurnNumber == nil || *m2.TurnNumber != 2 {
		t.Fatalf("turn 2 metadata: %+v", m2)
	}
	reqs := e.llm.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model got %d requests", len(reqs))
	}
	// Turn 1's concept is fenced data sent with the question, after the
	// history; the instructions never hold it. (The graph's facts turn 1 was
	// given come before it in the history; they are checked elsewhere.)
	var msgs []llm.Message
	for _, m := range reqs[1].Messages {
		if !strings.Contains(m.Content, "<graph_facts>") {
			msgs = append(msgs, m)
		}
	}
	if len(msgs) != 4 || !strings.Contains(msgs[2].Content, "<conversation_context>\n- Vehicle Registration Tax (IE) – ") ||
		strings.Contains(reqs[1].System, "Vehicle Registration Tax") {
		t.Fatalf("turn 2's request lacks turn 1's concept as fenced data:\n%+v\ninstructions:\n%s", msgs, reqs[1].System)
	}
	if msgs[0].Content != "How is VRT calculated on an imported car?" ||
		msgs[1].Content != "VRT is charged when a vehicle is registered in Ireland." || msgs[3].Content != "And for a used one?" {
		t.Fatalf("turn 2 history = %+v", msgs)
	}
	if !slices.Contains(reqs[0].ToolNames(), "capture_concepts") {
		t.Fatalf("capture_concepts not offered: %v", reqs[0].ToolNames())
	}
}

// streamShape is a scripted model response and what the client sees of it.
type streamShape struct {
	name       string
	script     llmtest.Script
	next       *llmtest.Script // the call after a response of tool calls only
	wantText   string
	wantNodes  []string
	wantStatus string
	wantWarn   bool
}

func streamShapes() []streamShape {
	vat := map[string]any{"domain": "TAX", "kind": "VAT", "jurisdiction": "IE", "prefLabel": "Value-Added Tax"}
	return []streamShape{
		{"text then tool", llmtest.Script{Steps: llmtest.Steps(llmtest.Words("Standard rate is 23%."), llmtest.ToolCallJSON("capture_concepts", captureArgs(vat), 1))}, nil,
			"Standard rate is 23%.", []string{"TAX:IE:VAT"}, "ok", false},
		// A real endpoint ends the response at the call: the answer comes in the next call.
		{"tool then text", llmtest.Script{Steps: llmtest.Steps(llmtest.ToolCallJSON("capture_concepts", captureArgs(vat, vrtConcept()), 3))},
			&llmtest.Script{Steps: llmtest.Words("Both apply.")},
			"Both apply.", []string{"TAX:IE:VAT", "TAX:IE:VRT"}, "ok", false},
		{"text then tool, args in 40 deltas", llmtest.Script{Steps: llmtest.Steps(llmtest.Words("VAT applies."), llmtest.ToolCallJSON("capture_concepts", captureArgs(vat), 40))}, nil,
			"VAT applies.", []string{"TAX:IE:VAT"}, "ok", false},
		{"malformed tool json", llmtest.Script{Steps: llmtest.Steps(llmtest.Words("Answer still completes."), llmtest.ToolCall("capture_concepts", `{"concepts":[{"domain":"TAX"`, 3))}, nil,
			"Answer still completes.", nil, "ok", true},
		{"error event mid-stream", llmtest.Script{Steps: llmtest.Steps(llmtest.Words("Partial answer"), llmtest.StreamError("server_error", "boom"))}, nil,
			"Partial answer", nil, "error", false},
		{"500 before streaming", llmtest.HTTPError(500, "upstream down"), nil, "", nil, "error", false},
	}
}

func TestStreamShapes(t *testing.T) {
	for _, protocol := range []llmtest.Protocol{llmtest.ProtocolResponses, llmtest.ProtocolChat} {
		for _, tc := range streamShapes() {
			t.Run(string(protocol)+"/"+tc.name, func(t *testing.T) {
				e := newEnv(t, envOptions{protocol: protocol})
				e.llm.Enqueue(tc.script)
				if tc.next != nil {
					e.llm.Enqueue(*tc.next)
				}
				resp := e.chat(map[string]any{"message": "What VAT applies?"}, nil)
				if resp.Status != 200 {
					t.Fatalf("status %d: %s", resp.Status, resp.Body)
				}
				if got := resp.text(); got != tc.wantText {
					t.Errorf("text = %q, want %q", got, tc.wantText)
				}
				names := resp.names()
				if names[len(names)-1] != "done" {
					t.Fatalf("stream does not end with done: %v", names)
				}
				var done struct{ Status string }
				_ = json.Unmarshal(resp.Events[len(resp.Events)-1].Data, &done)
				if done.Status != tc.wantStatus {
					t.Fatalf("done status = %q, want %q (events %v)", done.Status, tc.wantStatus, names)
				}
				if tc.wantStatus == "error" {
					checkPartialAnswerStored(t, e, resp, tc.wantText)
					return
				}
				checkAnswerMetadata(t, resp, tc)
			})
		}
	}
}

// checkPartialAnswerStored: a failed turn streams error then done, and its
// partial answer is stored, with status error.
func checkPartialAnswerStored(t *testing.T, e *env, resp chatResponse, wantText string) {
	t.Helper()
	names := resp.names()
	if len(resp.named("error")) != 1 || names[len(names)-2] != "error" {
		t.Fatalf("want error then done, got %v", names)
	}
	ids := e.conversationIDs("tenant-a")
	if len(ids) != 1 {
		t.Fatalf("%d conversations stored, want 1", len(ids))
	}
	turns := e.export(ids[0]).Turns
	if len(turns) != 1 {
		t.Fatalf("%d turns stored, want 1", len(turns))
	}
	if status, text := turns[0].Status, turns[0].AssistantText; status != conversation.TurnError || text != wantText {
		t.Fatalf("stored turn = %q %q", status, text)
	}
}

// checkAnswerMetadata checks an answered turn's metadata, warnings and
// disclaimer against tc.
func checkAnswerMetadata(t *testing.T, resp chatResponse, tc streamShape) {
	t.Helper()
	m := resp.metadata(t)
	if !slices.Equal(m.ReferencedNodes, tc.wantNodes) && !(len(tc.wantNodes) == 0 && len(m.ReferencedNodes) == 0) {
		t.Errorf("referencedNodes = %v, want %v", m.ReferencedNodes, tc.wantNodes)
	}
	if tc.wantWarn != (len(resp.named("warning")) > 0) {
		t.Errorf("warning events = %d, want warning %v", len(resp.named("warning")), tc.wantWarn)
	}
	if m.Usage.TotalTokens == 0 || m.DisclaimerKey == "" || m.AgentID == "" || m.UncertaintyLevel == "" {
		t.Errorf("metadata incomplete: %+v", m)
	}
	if len(resp.named("disclaimer")) != 1 {
		t.Errorf("want one disclaimer event: %v", resp.names())
	}
}

// Fifty messages sent at once to one conversation: one turn runs at a
// time, so each is either answered and stored or refused with 409
// turn_in_progress; the stored turns are numbered without gaps and the
// context holds the concepts of every stored turn. (Concurrent appends and
// merges below the HTTP layer are the store contract's.)
func TestFiftyConcurrentTurnsOnOneConversation(t *testing.T) {
	forEachStore(t, testFiftyConcurrentTurns)
}

func testFiftyConcurrentTurns(t *testing.T, postgres bool) {
	e := newEnv(t, envOptions{postgres: postgres})
	e.llm.SetResponder(func(req llmtest.RecordedRequest) llmtest.Script {
		var n int
		fmt.Sscanf(req.LastUserMessage(), "question %d", &n)
		c := map[string]any{"domain": "TAX", "kind": fmt.Sprintf("KIND_%02d", n), "jurisdiction": "IE", "prefLabel": fmt.Sprintf("Concept %d", n)}
		return llmtest.Script{Steps: llmtest.Steps(llmtest.Words("ok"), llmtest.ToolCallJSON("capture_concepts", captureArgs(c), 2))}
	})
	first := e.chat(map[string]any{"message": "question 0"}, nil)
	convID := *first.metadata(t).ConversationID

	answered := append([]int{0}, sendConcurrentTurns(t, e, convID, 49)...)
	held := e.export(convID)
	var numbers, stored []int
	for _, turn := range held.Turns {
		numbers = append(numbers, turn.Number)
		var n int
		fmt.Sscanf(turn.UserText, "question %d", &n)
		stored = append(stored, n)
	}
	for i, n := range numbers {
		if n != i+1 {
			t.Fatalf("gap or duplicate in turn numbers: %v", numbers)
		}
	}
	sort.Ints(stored)
	sort.Ints(answered)
	if !slices.Equal(stored, answered) {
		t.Fatalf("stored questions %v, answered %v", stored, answered)
	}
	if held.Context == nil {
		t.Fatal("no context stored")
	}
	raw := held.Context.Data
	var active conversation.Context
	_ = json.Unmarshal(raw, &active)
	var want []string
	for _, n := range answered {
		want = append(want, fmt.Sprintf("TAX:IE:KIND_%02d", n))
	}
	got := append([]string{}, active.ActiveNodeIDs...)
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Fatalf("activeNodeIds (%d) = %v, want %v", len(got), got, want)
	}
}

// sendConcurrentTurns sends questions 1 to n to the conversation at once,
// and returns the numbers of those answered; each other one must be
// refused as a turn in progress.
func sendConcurrentTurns(t *testing.T, e *env, convID string, n int) []int {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var answered []int
	failures := make(chan string, n)
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp := e.chat(map[string]any{"conversationId": convID, "message": fmt.Sprintf("question %d", i)}, nil)
			switch {
			case resp.Status == 200 && len(resp.named("warning")) == 0:
				mu.Lock()
				answered = append(answered, i)
				mu.Unlock()
			case resp.Status == 409 && strings.Contains(resp.Body, `"code":"turn_in_progress"`):
			default:
				failures <- fmt.Sprintf("turn %d: %d %s", i, resp.Status, resp.Body)
			}
		}()
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}
	return answered
}

func TestPostgresUnreachableStillAnswers(t *testing.T) {
	pool, err := pgpool.NewPool(context.Background(), pgpool.Config{URL: "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=2"})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	e := newEnv(t, envOptions{store: convpg.New(pool)})
	e.llm.SetDefault(llmtest.TextScript("VAT is 23% in Ireland."))
	for _, body := range []map[string]any{
		{"message": "What is VAT?"},
		{"message": "What is VAT?", "conversationId": "0b8e6a52-6a0e-4a5e-9a57-1f9a4d1c0e11"},
	} {
		resp := e.chat(body, nil)
		if resp.Status != 200 || resp.text() != "VAT is 23% in Ireland." {
			t.Fatalf("status %d text %q body %s", resp.Status, resp.text(), resp.Body)
		}
		if len(resp.named("warning")) == 0 {
			t.Fatalf("no warning when the database is down: %v", resp.names())
		}
		if m := resp.metadata(t); len(m.Warnings) == 0 {
			t.Fatal("metadata.warnings empty when the database is down")
		}
	}
}

func TestGraphDownLeavesContextOutWithWarning(t *testing.T) {
	e := newEnv(t, envOptions{graph: failingGraph{}})
	e.llm.Enqueue(llmtest.Script{Steps: llmtest.Steps(llmtest.Words("First."), llmtest.ToolCallJSON("capture_concepts", captureArgs(vrtConcept()), 2))})
	first := e.chat(map[string]any{"message": "VRT?"}, nil)
	e.llm.Enqueue(llmtest.TextScript("Second."))
	second := e.chat(map[string]any{"message": "More?", "conversationId": *first.metadata(t).ConversationID}, nil)
	if second.text() != "Second." || len(second.named("warning")) == 0 {
		t.Fatalf("graph outage: %v", second.names())
	}
	if strings.Contains(e.llm.Requests()[1].System, "already in scope") {
		t.Fatal("context paragraph present although the graph failed")
	}
}
