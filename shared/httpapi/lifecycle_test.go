package httpapi_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"regintel/shared/conversation"
	"regintel/shared/llm/llmtest"
)

// startData is the data of the start event.
type startData struct {
	ConversationID *string `json:"conversationId"`
	TurnNumber     *int    `json:"turnNumber"`
}

// started checks that the stream's first event is start, naming the
// response's X-Conversation-Id and turn, and returns the conversation id.
func (r chatResponse) started(t *testing.T, turn int) string {
	t.Helper()
	if r.Status != 200 || len(r.Events) == 0 || r.Events[0].Name != "start" {
		t.Fatalf("first event is not start: %d %v %s", r.Status, r.names(), r.Body)
	}
	var s startData
	if err := json.Unmarshal(r.Events[0].Data, &s); err != nil {
		t.Fatal(err)
	}
	header := r.Header.Get("X-Conversation-Id")
	if s.ConversationID == nil || *s.ConversationID != header || s.TurnNumber == nil || *s.TurnNumber != turn {
		t.Fatalf("start %s with X-Conversation-Id %q, want that conversation and turn %d", r.Events[0].Data, header, turn)
	}
	return header
}

func failingAnswer(partial string) llmtest.Script {
	return llmtest.Script{Steps: append(llmtest.Words(partial), llmtest.StreamError("server_error", "upstream broke"))}
}

// Every streamed turn names its conversation (header and first event) and
// its turn before any text, whether it then completes or fails.
func TestStreamNamesConversationAndTurnFirst(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		e := newEnv(t, envOptions{postgres: postgres})
		e.llm.Enqueue(failingAnswer("The rate "))
		first := e.chat(map[string]any{"message": "What VAT applies?"}, nil)
		id := first.started(t, 1)
		if first.doneStatus(t) != "error" {
			t.Fatalf("first turn: %v", first.names())
		}
		e.llm.Enqueue(llmtest.TextScript("It is 23%."))
		second := e.chat(map[string]any{"conversationId": id, "message": "And the standard rate?"}, nil)
		if second.started(t, 2) != id || second.metadata(t).TurnNumber == nil || *second.metadata(t).TurnNumber != 2 {
			t.Fatalf("second turn: %s", second.Body)
		}
		e.llm.Enqueue(llmtest.TextScript("Stateless."))
		stateless := e.chat(map[string]any{"message": "hi", "stateless": true}, nil)
		if _, has := stateless.Header["X-Conversation-Id"]; has || stateless.Events[0].Name != "start" ||
			string(stateless.Events[0].Data) != `{"conversationId":null,"turnNumber":null}` {
			t.Fatalf("stateless: header %v first %s %s", stateless.Header, stateless.Events[0].Name, stateless.Events[0].Data)
		}
	})
}

// A failed last turn is retried in place: same number, the conversation
// keeps one turn for it; a complete one is not retryable.
func TestRetryReplacesTheFailedTurn(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		e := newEnv(t, envOptions{postgres: postgres})
		e.llm.Enqueue(failingAnswer("Restaurant meals are "))
		id := e.chat(map[string]any{"message": "What VAT applies to restaurant meals?"}, nil).started(t, 1)

		e.llm.Enqueue(llmtest.TextScript("13.5%."))
		// The document lets a retry carry a client's history; the stored one is used.
		retry := e.chat(map[string]any{"conversationId": id, "retry": true,
			"messages": []map[string]any{{"role": "user", "content": "something else"}}}, nil)
		if retry.started(t, 1) != id || retry.doneStatus(t) != "ok" || retry.text() != "13.5%." {
			t.Fatalf("retry: %s", retry.Body)
		}
		if got := e.llm.Requests()[1].LastUserMessage(); got != "What VAT applies to restaurant meals?" {
			t.Errorf("the retry asked %q", got)
		}
		turns := e.export(id).Turns
		if len(turns) != 1 || turns[0].Status != conversation.TurnOK || turns[0].AssistantText != "13.5%." {
			t.Fatalf("stored after the retry: %+v", turns)
		}

		again := e.chat(map[string]any{"conversationId": id, "retry": true}, nil)
		assertError(t, again, http.StatusConflict, "not_retryable")
		assertError(t, e.chat(map[string]any{"conversationId": id, "retry": true, "message": "again"}, nil), http.StatusBadRequest, "invalid_request")
		assertError(t, e.chat(map[string]any{"retry": true}, nil), http.StatusBadRequest, "invalid_request")
		assertError(t, e.chat(map[string]any{"conversationId": "8d7c1e0a-5b4f-4a3e-9c2d-1f0e9d8c7b6a", "retry": true}, nil), http.StatusNotFound, "conversation_not_found")

		// useChat's regenerate: the body also carries the messages, ignored.
		e.llm.Enqueue(failingAnswer("Takeaway "))
		e.chat(map[string]any{"conversationId": id, "message": "And takeaway food?"}, nil).started(t, 2)
		e.llm.Enqueue(llmtest.TextScript("Mostly 0%."))
		body := `{"conversationId":"` + id + `","retry":true,"trigger":"regenerate-message",` +
			`"messages":[{"id":"m1","role":"user","parts":[{"type":"text","text":"something else"}]}]}`
		ui := uiStream(t, e.post("/chat?protocol=ui-message-stream", "application/json", body, nil).Body)
		if meta := ui[0].MessageMetadata; meta == nil || *meta.TurnNumber != 2 || ui[len(ui)-1].FinishReason != "stop" {
			t.Fatalf("useChat retry: %+v", ui)
		}
		if got := e.llm.Requests()[3].LastUserMessage(); got != "And takeaway food?" {
			t.Errorf("the useChat retry asked %q", got)
		}
		if turns := e.export(id).Turns; len(turns) != 2 || turns[1].AssistantText != "Mostly 0%." {
			t.Fatalf("stored after the useChat retry: %+v", turns)
		}
	})
}

func assertError(t *testing.T, r chatResponse, status int, code string) {
	t.Helper()
	var body struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal([]byte(r.Body), &body); err != nil || r.Status != status || body.Error.Code != code || body.Error.Message == "" {
		t.Errorf("got %d %s, want %d with code %q", r.Status, r.Body, status, code)
	}
}

// A client that closes the connection mid-answer does not stop the turn:
// the answer is finished and stored whole, and a retry is refused.
func TestClientDisconnectDoesNotStopTheTurn(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		e := newEnv(t, envOptions{postgres: postgres})
		answer := strings.Repeat("word ", 100)
		e.llm.Enqueue(llmtest.Script{Steps: llmtest.Words(answer), DeltaDelay: 10 * time.Millisecond})
		req, _ := http.NewRequest(http.MethodPost, e.server.URL+"/chat", strings.NewReader(`{"message":"Tell me everything."}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		id := resp.Header.Get("X-Conversation-Id")
		lines := bufio.NewScanner(resp.Body)
		for lines.Scan() && lines.Text() != "event: message" {
		}
		resp.Body.Close()

		deadline := time.Now().Add(10 * time.Second)
		var turns []conversation.Turn
		for time.Now().Before(deadline) {
			if turns = e.export(id).Turns; len(turns) == 1 && turns[0].Status != conversation.TurnStreaming {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if len(turns) != 1 || turns[0].Status != conversation.TurnOK || turns[0].AssistantText != answer {
			t.Fatalf("stored %+v, want one ok turn with the whole answer", turns)
		}
		retry := e.chat(map[string]any{"conversationId": id, "retry": true}, nil)
		assertError(t, retry, http.StatusConflict, "not_retryable")
	})
}

// A failed turn's UI stream: the start chunk already named it, the error
// chunk says what happened, and finish says why it ended.
func TestUIMessageStreamFailedTurn(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.llm.Enqueue(failingAnswer("The rate "))
	resp := e.post("/chat?protocol=ui-message-stream", "application/json", `{"messages":[{"role":"user","parts":[{"type":"text","text":"VAT?"}]}]}`, nil)
	chunks := uiStream(t, resp.Body)
	types := strings.Join(chunkTypes(chunks), " ")
	if !strings.HasPrefix(types, "start text-start") || !strings.HasSuffix(types, "error text-end finish") {
		t.Fatalf("chunk types %s", types)
	}
	start, finish := chunks[0], chunks[len(chunks)-1]
	if start.MessageMetadata == nil || start.MessageMetadata.ConversationID == nil || *start.MessageMetadata.ConversationID != resp.Header.Get("X-Conversation-Id") {
		t.Errorf("start = %+v", start)
	}
	if finish.FinishReason != "error" {
		t.Errorf("finish = %+v, want finishReason error", finish)
	}
}

// Warnings are transient data parts; a context request is a typed
// data-context-request part, keyed by its request id.
func TestUIMessageStreamDataParts(t *testing.T) {
	e := newEnv(t, envOptions{graph: failingGraph{}})
	e.llm.Enqueue(llmtest.Script{Steps: llmtest.Steps(
		llmtest.Words("I need a few details first."),
		llmtest.ToolCallJSON("request_context", requestContextArgs(), 4),
	)})
	body := `{"messages":[{"role":"user","parts":[{"type":"text","text":"` + deferredQuestion + `"}]}]}`
	chunks := uiStream(t, e.post("/chat?protocol=ui-message-stream", "application/json", body, nil).Body)
	var warning, request *uiChunk
	for i, c := range chunks {
		switch c.Type {
		case "data-warning":
			warning = &chunks[i]
		case "data-context-request":
			request = &chunks[i]
		}
	}
	if warning == nil || !warning.Transient || !strings.Contains(string(warning.Data), "rules graph is unavailable") {
		t.Errorf("warning chunk = %+v, want a transient data-warning", warning)
	}
	var ev contextRequestEvent
	if request == nil || request.Transient || json.Unmarshal(request.Data, &ev) != nil || ev.RequestID == "" || request.ID != ev.RequestID || len(ev.Items) != 3 {
		t.Fatalf("context request chunk = %+v", request)
	}
	if finish := chunks[len(chunks)-1]; finish.FinishReason != "other" {
		t.Errorf("finish = %+v, want finishReason other", finish)
	}

	// The README's recipe: sendMessage() with no message and the supply in
	// the body; the last message sent is the assistant's, so the deferred
	// question is answered.
	e.llm.Enqueue(llmtest.TextScript("Yes, a refund of about 300 euro."))
	supply, _ := json.Marshal(map[string]any{
		"conversationId": *chunks[0].MessageMetadata.ConversationID,
		"contextSupply": map[string]any{"requestId": ev.RequestID, "items": []map[string]string{
			{"key": "annual_income", "content": "52000"}, {"key": "p60", "content": "P60 2024: gross pay 52000"}}},
		"messages": []map[string]any{{"id": "a1", "role": "assistant", "parts": []map[string]any{{"type": "text", "text": "I need a few details first."}}}},
	})
	answer := uiStream(t, e.post("/chat?protocol=ui-message-stream", "application/json", string(supply), nil).Body)
	if finish := answer[len(answer)-1]; finish.FinishReason != "stop" || *answer[0].MessageMetadata.TurnNumber != 2 {
		t.Fatalf("supplied turn: %+v", answer)
	}
	if got := e.llm.Requests()[1].LastUserMessage(); !strings.Contains(got, deferredQuestion) {
		t.Errorf("the supplied turn asked %q, want the deferred question", got)
	}
}

// useChat sends the whole history on every turn; for a stored conversation
// the server reads only the last user message, and that route accepts up
// to 4 MiB so a long conversation is never refused.
func TestUseChatBodyWithLongHistory(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.llm.SetDefault(llmtest.TextScript("Answer."))
	id := e.chat(map[string]any{"message": "First question"}, nil).started(t, 1)
	long := strings.Repeat("earlier answer text ", 100)
	var messages []map[string]any
	for i := range 200 {
		role := []string{"user", "assistant"}[i%2]
		messages = append(messages, map[string]any{"id": "m", "role": role, "parts": []map[string]any{{"type": "text", "text": long}},
			"metadata": map[string]any{"conversationId": id}})
	}
	messages = append(messages, map[string]any{"id": "last", "role": "user", "parts": []map[string]any{{"type": "text", "text": "The new question"}}})
	raw, _ := json.Marshal(map[string]any{"conversationId": id, "messages": messages})
	if len(raw) < 300<<10 {
		t.Fatalf("body is only %d bytes", len(raw))
	}
	resp := e.post("/chat?protocol=ui-message-stream", "application/json", string(raw), nil)
	if resp.Status != 200 || resp.Header.Get("X-Conversation-Id") != id {
		t.Fatalf("%d %s", resp.Status, resp.Body[:min(len(resp.Body), 300)])
	}
	last := e.llm.Requests()[1]
	if last.LastUserMessage() != "The new question" || strings.Contains(promptOf(last), "earlier answer text") {
		t.Errorf("the model was given the client's history: %q", last.LastUserMessage())
	}
	assertError(t, e.post("/chat", "application/json", string(raw), nil), http.StatusRequestEntityTooLarge, "body_too_large")
	huge := `{"conversationId":"` + id + `","messages":[{"role":"user","parts":[{"type":"text","text":"` + strings.Repeat("a", 4<<20) + `"}]}]}`
	tooLarge := e.post("/chat?protocol=ui-message-stream", "application/json", huge, nil)
	assertError(t, tooLarge, http.StatusRequestEntityTooLarge, "body_too_large")
	if !strings.Contains(tooLarge.Body, "4 MiB") {
		t.Errorf("413 does not name the limit: %s", tooLarge.Body)
	}
}

func promptOf(r llmtest.RecordedRequest) string {
	var b strings.Builder
	b.WriteString(r.System)
	for _, m := range r.Messages {
		b.WriteString(m.Content)
	}
	return b.String()
}
