package httpapi_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"regintel/shared/chat"
	"regintel/shared/llm"
	"regintel/shared/llm/llmtest"
	"regintel/shared/prompt"
)

type storedUsage struct {
	QueryComposition string       `json:"queryComposition"`
	Context          prompt.Usage `json:"context"`
}

func TestTwelveTurnsOverBudgetKeepNewestTurnsWhole(t *testing.T) {
	const budget = 2800 // room for the tools (calculate among them), the dated USC facts and some, not all, of the history
	e := newContextEnv(t, chat.Config{TokenBudget: budget, HistoryTurns: 12})
	tok := prompt.TokenizerForModel("gpt-test")
	convID := runBudgetTurns(t, e, 12)

	last := e.llm.Requests()[11]
	wantTurns := checkWholeTurnsSent(t, last)
	included := len(wantTurns)
	// The budget holds for what was sent.
	sent := tok.Count(last.System)
	history := 0
	for _, m := range last.Messages[:len(last.Messages)-1] {
		history += tok.Count(m.Content)
	}
	prompted := sent + history + tok.Count(budgetQuestion(12))

	// The stored metadata matches what was sent.
	got := storedUsageOfLastTurn(t, e, convID, 12)
	u := got.Context
	// The offered tools' schemas count against the budget too.
	total := prompted + u.ToolTokens
	if u.ToolTokens == 0 || total > budget {
		t.Fatalf("sent %d tokens with %d for tools, budget %d", total, u.ToolTokens, budget)
	}
	if !slices.Equal(u.TurnsIncluded, wantTurns) {
		t.Errorf("turnsIncluded = %v, want %v", u.TurnsIncluded, wantTurns)
	}
	if len(u.TurnsDropped) != 11-included || u.TurnsDropped[0] != 1 {
		t.Errorf("turnsDropped = %v", u.TurnsDropped)
	}
	if u.SystemTokens != sent || u.HistoryTokens != history || u.TotalTokens != total || u.Budget != budget || u.Encoding != "cl100k_base" {
		t.Errorf("recorded tokens %+v; sent system %d history %d total %d", u, sent, history, total)
	}
	// The question names PAYE and USC, so the graph's facts ground it.
	if u.SectionTokens["base_role"] == 0 || u.HistoryWindow != 12 || u.TruncationApplied || got.QueryComposition != "kb" || u.FactsIncluded == 0 {
		t.Errorf("recorded usage = %+v, composition %q", u, got.QueryComposition)
	}
	// The newest turns are never dropped while older ones are kept.
	for _, d := range u.TurnsDropped {
		if d > wantTurns[0] {
			t.Errorf("turn %d dropped while older turn %d kept", d, wantTurns[0])
		}
	}
}

func budgetQuestion(i int) string {
	return strings.TrimSpace(fmt.Sprintf("Question %d: how does the PAYE credit interact with the USC band for a second job? ", i) +
		strings.Repeat("Please consider the details carefully. ", 5))
}

func budgetAnswer(i int) string {
	return strings.TrimSpace(fmt.Sprintf("Answer %d: ", i) + strings.Repeat("The credit is apportioned between employments by Revenue. ", 8))
}

// runBudgetTurns has n turns of one conversation, each answered, and
// returns its id.
func runBudgetTurns(t *testing.T, e *env, n int) string {
	t.Helper()
	convID := ""
	for i := 1; i <= n; i++ {
		e.llm.Enqueue(llmtest.TextScript(budgetAnswer(i)))
		body := map[string]any{"message": budgetQuestion(i)}
		if convID != "" {
			body["conversationId"] = convID
		}
		resp := e.chat(body, nil)
		if resp.Status != 200 || resp.doneStatus(t) != "ok" {
			t.Fatalf("turn %d: %d %s", i, resp.Status, resp.Body)
		}
		convID = *resp.metadata(t).ConversationID
	}
	return convID
}

// checkWholeTurnsSent checks what the model received on turn 12: whole
// turns, newest first, none cut, each after the graph's facts it was the
// first to be given, then the question; the facts are fenced user-role
// data. It returns the numbers of the turns sent, oldest first.
func checkWholeTurnsSent(t *testing.T, last llmtest.RecordedRequest) []int {
	t.Helper()
	var msgs []llm.Message
	facts := ""
	for _, m := range last.Messages {
		if strings.Contains(m.Content, "<graph_facts>\n") {
			facts += m.Content
			continue
		}
		msgs = append(msgs, m)
	}
	if len(msgs)%2 != 1 || msgs[len(msgs)-1].Content != budgetQuestion(12) || facts == "" {
		t.Fatalf("last request has %d messages ending %q", len(msgs), msgs[len(msgs)-1].Content)
	}
	included := (len(msgs) - 1) / 2
	if included < 1 || included >= 11 {
		t.Fatalf("%d history turns sent; the budget should keep some but not all 11", included)
	}
	var wantTurns []int
	for k := 0; k < included; k++ {
		n := 12 - included + k
		wantTurns = append(wantTurns, n)
		if msgs[2*k].Content != budgetQuestion(n) || msgs[2*k+1].Content != budgetAnswer(n) {
			t.Fatalf("history message %d is not turn %d whole: %q", 2*k, n, msgs[2*k].Content)
		}
	}
	return wantTurns
}

// storedUsageOfLastTurn reads the usage stored with turn n, the last of
// the conversation.
func storedUsageOfLastTurn(t *testing.T, e *env, convID string, n int) storedUsage {
	t.Helper()
	turns := e.export(convID).Turns
	if len(turns) != n || turns[n-1].Number != n {
		t.Fatalf("%d turns stored", len(turns))
	}
	raw, err := json.Marshal(turns[n-1].Metadata)
	if err != nil {
		t.Fatal(err)
	}
	var got storedUsage
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	return got
}

// A single item larger than a quarter of the budget is cut with a marker,
// and the cut is recorded.
func TestOverlongSuppliedItemIsTruncatedWithMarker(t *testing.T) {
	const budget = 2000
	e := newContextEnv(t, chat.Config{TokenBudget: budget})
	document := strings.Repeat("Section 472 employee tax credit applies to PAYE income. ", 200)
	resp := e.chat(map[string]any{"message": "Summarise my document.",
		"contextSupply": map[string]any{"items": []map[string]any{{"key": "letter", "kind": "document", "content": document}}}}, nil)
	if resp.Status != 200 {
		t.Fatalf("%d %s", resp.Status, resp.Body)
	}
	req, _ := e.llm.LastRequest()
	// Supplied context is a user message of its own, before the question.
	supplied := req.Messages[0].Content
	if !strings.Contains(supplied, "<supplied_context>") || !strings.Contains(supplied, "[… truncated:") || strings.Contains(supplied, document) {
		t.Fatal("over-long item not truncated with a marker")
	}
	tok := prompt.TokenizerForModel("gpt-test")
	if total := tok.Count(req.System) + tok.Count(supplied) + tok.Count(req.LastUserMessage()); total > budget {
		t.Fatalf("sent %d tokens over budget %d", total, budget)
	}
	m := resp.metadata(t)
	if m.Context == nil || !m.Context.TruncationApplied || !slices.Contains(m.Context.Truncated, "supplied:letter") || m.QueryComposition != "doc" {
		t.Fatalf("metadata context = %+v", m.Context)
	}
}
