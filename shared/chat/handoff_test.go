package chat

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"regintel/shared/conversation"
	convmem "regintel/shared/conversation/memory"
	"regintel/shared/llm"
	"regintel/shared/prompt"
)

func TestParseRequestContext(t *testing.T) {
	items, err := parseRequestContext(json.RawMessage(`{"items":[
		{"key":"annual income","description":"Gross income","kind":"profile_fact","required":true},
		{"key":"letter","description":"Revenue letter","kind":"video","required":false},
		{"key":"annual_income","description":"duplicate","kind":"text"},
		{"key":"!!","description":"unusable key","kind":"text"},
		{"key":"residency","description":"Where you live"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []conversation.RequestedItem{
		{Key: "annual_income", Description: "Gross income", Kind: "profile_fact", Required: true},
		{Key: "letter", Description: "Revenue letter", Kind: "text", Required: false},
		{Key: "residency", Description: "Where you live", Kind: "text", Required: true},
	}
	if len(items) != len(want) {
		t.Fatalf("items = %+v", items)
	}
	for i := range want {
		if items[i] != want[i] {
			t.Errorf("item %d = %+v, want %+v", i, items[i], want[i])
		}
	}
	for _, bad := range []string{`{"items":[]}`, `{"items":[{"key":"??"}]}`, `{"items":`} {
		if _, err := parseRequestContext(json.RawMessage(bad)); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}

func TestSupplyValidationSanitises(t *testing.T) {
	s := Supply{Items: []SuppliedInput{{Key: " my note ", Content: "line one\r\nline\x00 two\x1b[31m\n"}}}
	if err := s.validate(); err != nil {
		t.Fatal(err)
	}
	if s.Items[0].Key != "my_note" || s.Items[0].Content != "line one\nline two[31m" {
		t.Fatalf("sanitised = %q %q", s.Items[0].Key, s.Items[0].Content)
	}
	tooLong := Supply{Items: []SuppliedInput{{Key: "k", Content: strings.Repeat("x", MaxSuppliedChars+1)}}}
	if err := tooLong.validate(); !errors.Is(err, ErrInvalid) {
		t.Fatalf("over-long content: %v", err)
	}
}

// An over-long history turn is cut with a marker and recorded; newer turns
// are preferred to older ones and the budget holds.
func TestFitContextTruncatesOverlongTurnAndHoldsBudget(t *testing.T) {
	e := New(Deps{Store: convmem.New(), Provider: stubProvider{}}, Config{TokenBudget: 1200, Model: "gpt-4.1-mini"})
	long := strings.Repeat("The relief is claimed through myAccount each year. ", 120)
	history := []conversation.Turn{
		{Number: 1, UserText: "first question", AssistantText: "first answer"},
		{Number: 2, UserText: "second question", AssistantText: long},
		{Number: 3, UserText: "third question", AssistantText: "third answer"},
	}
	a, err := e.fitContext(contextInput{data: prompt.Data{AgentID: "a"}, history: history, question: "new question"})
	if err != nil {
		t.Fatal(err)
	}
	u := a.usage
	if u.TotalTokens > 1200 || !u.TruncationApplied || len(u.Truncated) != 1 || u.Truncated[0] != "turn:2" {
		t.Fatalf("usage = %+v", u)
	}
	var cut string
	for _, m := range a.messages {
		if m.Role == llm.RoleAssistant && strings.HasPrefix(m.Content, "The relief") {
			cut = m.Content
		}
	}
	if !strings.Contains(cut, "[… truncated:") || e.tokens.Count(cut) > 1200/4 {
		t.Fatalf("turn 2 answer not cut to a quarter of the budget with a marker (%d tokens)", e.tokens.Count(cut))
	}
	if a.messages[len(a.messages)-1].Content != "new question" || a.composition != CompositionChat {
		t.Fatalf("last message %q, composition %q", a.messages[len(a.messages)-1].Content, a.composition)
	}
	total := e.tokens.Count(a.system)
	for _, m := range a.messages {
		total += e.tokens.Count(m.Content)
	}
	if total != u.TotalTokens {
		t.Fatalf("recorded total %d, recount %d", u.TotalTokens, total)
	}
}

// stubProvider never streams: fitContext only asks whether tools exist.
type stubProvider struct{}

func (stubProvider) Stream(context.Context, llm.Request) (<-chan llm.Chunk, error) {
	return nil, errors.New("not used")
}
func (stubProvider) Name() string        { return "stub" }
func (stubProvider) SupportsTools() bool { return true }
