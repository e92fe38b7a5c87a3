package httpapi_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"regintel/shared/llm/llmtest"
)

// A failed turn tells the client why in a code it can branch on, and
// still sends the metadata (turn, usage, warnings), on both protocols.
func TestFailedTurnSendsACodedErrorAndItsMetadata(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.llm.Enqueue(failingAnswer("The rate "))
	sse := e.chat(map[string]any{"message": "What VAT applies?"}, nil)
	names := strings.Join(sse.names(), " ")
	if !strings.HasSuffix(names, "metadata error done") {
		t.Fatalf("events %s, want metadata, error and done last", names)
	}
	var failure struct{ Code, Message string }
	if err := json.Unmarshal(sse.named("error")[0].Data, &failure); err != nil || failure.Code != "model_failed" || failure.Message == "" {
		t.Fatalf("error event %s", sse.named("error")[0].Data)
	}
	if meta := sse.metadata(t); meta.TurnNumber == nil || *meta.TurnNumber != 1 {
		t.Fatalf("metadata of the failed turn: %+v", meta)
	}

	e.llm.Enqueue(failingAnswer("The rate "))
	resp := e.post("/chat?protocol=ui-message-stream", "application/json", `{"messages":[{"role":"user","parts":[{"type":"text","text":"VAT?"}]}]}`, nil)
	if resp.Status != http.StatusOK {
		t.Fatalf("UI stream: %d", resp.Status)
	}
	chunks := uiStream(t, resp.Body)
	var errorText string
	for _, c := range chunks {
		if c.Type == "error" {
			errorText = c.ErrorText
		}
	}
	if !strings.HasPrefix(errorText, "model_failed: ") {
		t.Errorf("errorText %q does not lead with the code", errorText)
	}
	if finish := chunks[len(chunks)-1]; finish.MessageMetadata == nil || finish.MessageMetadata.TurnNumber == nil {
		t.Errorf("finish chunk without the turn's metadata: %+v", finish)
	}
}

// A conflict that passes by itself says when to try again: a message
// while the previous answer streams.
func TestTurnInProgressConflictCarriesRetryAfter(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.llm.Enqueue(llmtest.Script{Steps: llmtest.Steps(llmtest.Words("The rate follows. "), llmtest.Pause(time.Second), llmtest.Words("It is 23%."))})
	resp, err := http.Post(e.server.URL+"/chat", "application/json", strings.NewReader(`{"message":"VAT?"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	stream := bufio.NewReader(resp.Body)
	for { // streaming once its first text arrives
		line, err := stream.ReadString('\n')
		if err != nil {
			t.Fatalf("the first turn ended before its text: %v", err)
		}
		if strings.HasPrefix(line, "event: message") {
			break
		}
	}
	second := e.chat(map[string]any{"conversationId": resp.Header.Get("X-Conversation-Id"), "message": "Hello?"}, nil)
	assertError(t, second, http.StatusConflict, "turn_in_progress")
	if seconds, err := strconv.Atoi(second.Header.Get("Retry-After")); err != nil || seconds < 1 {
		t.Errorf("409 turn_in_progress with Retry-After %q", second.Header.Get("Retry-After"))
	}
	_, _ = io.Copy(io.Discard, stream)
}
