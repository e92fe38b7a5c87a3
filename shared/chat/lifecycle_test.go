package chat_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"regintel/shared/chat"
	"regintel/shared/conversation"
	convmem "regintel/shared/conversation/memory"
	"regintel/shared/llm/llmtest"
	"regintel/shared/prompt"
)

// startOf decodes the stream's first event, which must be start.
func startOf(t *testing.T, s *sink) chat.Start {
	t.Helper()
	if len(s.events) == 0 || s.events[0].name != chat.EventStart {
		t.Fatalf("first event is not start: %v", s.names())
	}
	var start chat.Start
	if err := json.Unmarshal(s.events[0].data, &start); err != nil {
		t.Fatal(err)
	}
	return start
}

func (h *harness) history(conversationID string) []conversation.Turn {
	h.t.Helper()
	state, err := h.store.LoadTurnState(conversation.WithOwner(context.Background(), "user-1"), tenantA, conversationID, 10)
	if err != nil {
		h.t.Fatal(err)
	}
	return state.History
}

// Every stream names its conversation and turn before any text, and the
// final metadata agrees; a stateless stream says null for both.
func TestStartEventNamesConversationAndTurnFirst(t *testing.T) {
	h := newHarness(t, "responses")
	h.srv.SetDefault(llmtest.TextScript("Answer."))
	s1, first := h.turn(chat.Request{Message: "What is VAT?"})
	start1 := startOf(t, s1)
	if start1.ConversationID == nil || start1.TurnNumber == nil || *start1.TurnNumber != 1 ||
		*start1.ConversationID != *first.Metadata.ConversationID || *first.Metadata.TurnNumber != 1 {
		t.Fatalf("first turn: start %+v, metadata %+v", start1, first.Metadata)
	}
	s2, second := h.turn(chat.Request{ConversationID: *start1.ConversationID, Message: "And PRSI?"})
	if start2 := startOf(t, s2); *start2.ConversationID != *start1.ConversationID || *start2.TurnNumber != 2 || *second.Metadata.TurnNumber != 2 {
		t.Fatalf("second turn: start %+v, metadata turn %v", start2, second.Metadata.TurnNumber)
	}
	if turns := h.history(*start1.ConversationID); len(turns) != 2 || turns[1].Status != conversation.TurnOK || turns[1].AssistantText != "Answer." {
		t.Fatalf("stored %+v", turns)
	}
	s3, _ := h.turn(chat.Request{Message: "Stateless?", Stateless: true})
	if start3 := startOf(t, s3); start3.ConversationID != nil || start3.TurnNumber != nil {
		t.Errorf("stateless start = %+v, want nulls", start3)
	}
	if !strings.Contains(string(s3.events[0].data), `"conversationId":null`) || !strings.Contains(string(s3.events[0].data), `"turnNumber":null`) {
		t.Errorf("stateless start data = %s", s3.events[0].data)
	}
}

// A first turn whose model fails still told the client its conversation
// and turn, so the client can retry it instead of starting an orphan.
func TestFailedFirstTurnIsNamedBeforeItFails(t *testing.T) {
	h := newHarness(t, "responses")
	h.srv.Enqueue(llmtest.Script{Steps: append(llmtest.Words("The rate "), llmtest.StreamError("server_error", "boom"))})
	s, res := h.turn(chat.Request{Message: "VAT?"})
	start := startOf(t, s)
	if res.Status != "error" || start.ConversationID == nil || start.TurnNumber == nil || *start.TurnNumber != 1 {
		t.Fatalf("status %q start %+v", res.Status, start)
	}
	if turns := h.history(*start.ConversationID); len(turns) != 1 || turns[0].Status != conversation.TurnError || turns[0].AssistantText != "The rate " {
		t.Fatalf("stored %+v", turns)
	}
}

// goneAfter is a client that reads n answer deltas and goes away.
type goneAfter struct {
	sink
	n int
}

func (g *goneAfter) Event(name string, data any) error {
	if name == chat.EventMessage {
		if g.n == 0 {
			return errors.New("write: broken pipe")
		}
		g.n--
	}
	return g.sink.Event(name, data)
}

// A client that goes away mid-answer stops the model; the partial answer
// is stored as interrupted, not as a model failure, and the next prompt
// marks it as cut short.
func TestClientGoneMidAnswerIsInterrupted(t *testing.T) {
	h := newHarness(t, "responses")
	full := strings.Repeat("word ", 60)
	h.srv.Enqueue(llmtest.Script{Steps: llmtest.Words(full), DeltaDelay: 50 * time.Millisecond})
	turn, err := h.engine.Prepare(context.Background(), chat.Request{TenantID: tenantA, UserID: "user-1", Message: "Tell me everything."})
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	client := &goneAfter{n: 2}
	res := turn.Stream(context.Background(), client)
	if took := time.Since(began); took > 2*time.Second {
		t.Errorf("the turn took %v: the model was not stopped when the client went away", took)
	}
	if res.Status != "interrupted" || client.text() != "word word " {
		t.Fatalf("status %q, client read %q", res.Status, client.text())
	}
	conv := turn.ConversationID()
	turns := h.history(conv)
	if len(turns) != 1 || turns[0].Status != conversation.TurnInterrupted ||
		!strings.HasPrefix(full, turns[0].AssistantText) || len(turns[0].AssistantText) >= len(full) {
		t.Fatalf("stored %+v", turns)
	}

	h.srv.Enqueue(llmtest.TextScript("Next."))
	h.turn(chat.Request{ConversationID: conv, Message: "Go on."})
	reqs := h.srv.Requests()
	if !strings.Contains(promptText(reqs[len(reqs)-1]), turns[0].AssistantText+"\n"+prompt.CutShortMarker) {
		t.Errorf("the interrupted answer is not marked as cut short in the next prompt: %+v", reqs[len(reqs)-1].Messages)
	}
}

// A request cancelled by the client (the HTTP layer cancels it when the
// connection closes) is interrupted too.
func TestCancelledRequestIsInterrupted(t *testing.T) {
	h := newHarness(t, "responses")
	h.srv.Enqueue(llmtest.Script{Steps: llmtest.Words(strings.Repeat("word ", 60)), DeltaDelay: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	turn, err := h.engine.Prepare(ctx, chat.Request{TenantID: tenantA, UserID: "user-1", Message: "Tell me everything."})
	if err != nil {
		t.Fatal(err)
	}
	client := &cancelAfter{n: 2, cancel: cancel}
	if res := turn.Stream(ctx, client); res.Status != "interrupted" {
		t.Fatalf("status %q", res.Status)
	}
	if turns := h.history(turn.ConversationID()); len(turns) != 1 || turns[0].Status != conversation.TurnInterrupted {
		t.Fatalf("stored %+v", turns)
	}
}

type cancelAfter struct {
	sink
	once   sync.Once
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Event(name string, data any) error {
	if name == chat.EventMessage {
		if c.n--; c.n < 0 {
			c.once.Do(c.cancel)
		}
	}
	return c.sink.Event(name, data)
}

func promptText(r llmtest.RecordedRequest) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Content + "\n")
	}
	return b.String()
}

// A retry asks the failed last turn's question again under its number: the
// conversation keeps one turn for it, and the failed answer is not in the
// retried prompt.
func TestRetryReplacesTheFailedTurn(t *testing.T) {
	h := newHarness(t, "responses")
	h.srv.Enqueue(llmtest.TextScript("Twenty-three per cent."))
	_, first := h.turn(chat.Request{Message: "What is the standard VAT rate?"})
	conv := *first.Metadata.ConversationID
	h.srv.Enqueue(llmtest.Script{Steps: append(llmtest.Words("Meals are "), llmtest.StreamError("server_error", "boom"))})
	if _, res := h.turn(chat.Request{ConversationID: conv, Message: "And for restaurant meals?"}); res.Status != "error" {
		t.Fatalf("second turn status %q", res.Status)
	}

	h.srv.Enqueue(llmtest.TextScript("Meals are 13.5%."))
	s, res := h.turn(chat.Request{ConversationID: conv, Retry: true})
	if start := startOf(t, s); res.Status != "ok" || *start.TurnNumber != 2 || *res.Metadata.TurnNumber != 2 || s.text() != "Meals are 13.5%." {
		t.Fatalf("retry: status %q start %+v text %q", res.Status, start, s.text())
	}
	retried := h.srv.Requests()[2]
	if got := retried.LastUserMessage(); !strings.Contains(got, "And for restaurant meals?") {
		t.Errorf("the retry asked %q", got)
	}
	text := promptText(retried)
	if strings.Contains(text, "Meals are \n") || strings.Count(text, "And for restaurant meals?") != 1 || !strings.Contains(text, "Twenty-three per cent.") {
		t.Errorf("retried prompt must hold turn 1 and the question once, not the failed answer:\n%s", text)
	}
	turns := h.history(conv)
	if len(turns) != 2 || turns[1].Number != 2 || turns[1].Status != conversation.TurnOK || turns[1].AssistantText != "Meals are 13.5%." ||
		turns[1].UserText != "And for restaurant meals?" {
		t.Fatalf("stored %+v", turns)
	}

	// The last turn is now complete: nothing to retry.
	if _, err := h.engine.Prepare(context.Background(), chat.Request{TenantID: tenantA, UserID: "user-1", ConversationID: conv, Retry: true}); !errors.Is(err, conversation.ErrNotRetryable) {
		t.Errorf("retry of a complete turn = %v, want conversation.ErrNotRetryable", err)
	}
}

func TestRetryRequestsAreChecked(t *testing.T) {
	conv := "8d7c1e0a-5b4f-4a3e-9c2d-1f0e9d8c7b6a"
	for name, req := range map[string]chat.Request{
		"no conversation": {Retry: true},
		"stateless":       {Retry: true, Stateless: true},
		"with a message":  {Retry: true, ConversationID: conv, Message: "again"},
		"with a supply":   {Retry: true, ConversationID: conv, Supply: &chat.Supply{Items: []chat.SuppliedInput{{Key: "k", Content: "c"}}}},
		"bad id":          {Retry: true, ConversationID: "nope"},
	} {
		if err := req.Validate(); !errors.Is(err, chat.ErrInvalid) {
			t.Errorf("%s: Validate = %v, want ErrInvalid", name, err)
		}
	}
	if err := (chat.Request{Retry: true, ConversationID: conv}).Validate(); err != nil {
		t.Errorf("a plain retry: %v", err)
	}
}

// reserveRefused is a store that cannot store a turn's reservation, as
// during a short outage: the start reserves nothing and ReserveTurn fails.
type reserveRefused struct{ *convmem.Store }

func (s reserveRefused) StartConversation(ctx context.Context, c conversation.Conversation, start conversation.TurnStart) (conversation.TurnState, error) {
	start.Reserve = nil
	return s.Store.StartConversation(ctx, c, start)
}

func (reserveRefused) ReserveTurn(context.Context, string, string, conversation.Turn) (int, error) {
	return 0, errors.New("connection reset")
}

// A turn whose start cannot be stored still answers, and is stored whole
// when it ends: the start event has no number, the metadata has one.
func TestTurnWhoseStartFailsIsStoredAtTheEnd(t *testing.T) {
	store := reserveRefused{convmem.New()}
	h := newHarness(t, "responses", func(d *chat.Deps, _ *chat.Config) { d.Store = store })
	h.store = store.Store
	h.srv.Enqueue(llmtest.TextScript("Answer."))
	s, res := h.turn(chat.Request{Message: "VAT?", Profile: chat.Profile{Jurisdictions: []string{"IE"}}})
	start := startOf(t, s)
	if res.Status != "ok" || start.ConversationID == nil || start.TurnNumber != nil || res.Metadata.TurnNumber == nil || *res.Metadata.TurnNumber != 1 {
		t.Fatalf("status %q start %+v metadata turn %v", res.Status, start, res.Metadata.TurnNumber)
	}
	state, err := store.LoadTurnState(conversation.WithOwner(context.Background(), "user-1"), tenantA, *start.ConversationID, 5)
	if err != nil || len(state.History) != 1 || state.History[0].Status != conversation.TurnOK || state.History[0].AssistantText != "Answer." ||
		state.Conversation.Profile == nil || state.Conversation.Profile.Jurisdictions[0] != "IE" {
		t.Fatalf("stored %+v, %v", state, err)
	}
}
