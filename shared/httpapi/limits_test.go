package httpapi_test

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"regintel/shared/chat"
	"regintel/shared/llm/llmtest"
)

// A second message to a conversation whose answer is still streaming is
// refused with 409 turn_in_progress (a double submit), not interleaved
// into its history; once the answer is stored the conversation takes
// messages again.
func TestSecondTurnWhileStreamingIsConflict(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		e := newEnv(t, envOptions{postgres: postgres})
		e.llm.SetDefault(llmtest.TextScript("VAT is 23%."))
		convID := *e.chat(map[string]any{"message": "What is VAT?"}, nil).metadata(t).ConversationID
		e.llm.Enqueue(llmtest.Script{Steps: llmtest.Steps(llmtest.Words("The reduced rate follows. "), llmtest.Pause(time.Second), llmtest.Words("It is 13.5%."))})

		body := `{"conversationId":"` + convID + `","message":"And the reduced rate?"}`
		resp, err := http.Post(e.server.URL+"/chat", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		stream := bufio.NewReader(resp.Body)
		for { // the first answer is streaming once its first text arrives
			line, err := stream.ReadString('\n')
			if err != nil {
				t.Fatalf("first turn ended before its text: %v", err)
			}
			if strings.HasPrefix(line, "event: message") {
				break
			}
		}

		second := e.chat(map[string]any{"conversationId": convID, "message": "Hello?"}, nil)
		if second.Status != http.StatusConflict || !strings.Contains(second.Body, `"code":"turn_in_progress"`) {
			t.Fatalf("second message while streaming: %d %s", second.Status, second.Body)
		}
		rest, _ := stream.ReadString(0)
		if !strings.Contains(rest, "event: done") {
			t.Fatalf("first turn did not finish: %s", rest)
		}

		third := e.chat(map[string]any{"conversationId": convID, "message": "Thanks."}, nil)
		if third.Status != http.StatusOK {
			t.Fatalf("message after the answer was stored: %d %s", third.Status, third.Body)
		}
		var questions []string
		for _, turn := range e.export(convID).Turns {
			questions = append(questions, turn.UserText)
		}
		if strings.Join(questions, "|") != "What is VAT?|And the reduced rate?|Thanks." {
			t.Errorf("history = %q", questions)
		}
	})
}

// Once a tenant's turns used TENANT_DAILY_TOKEN_LIMIT tokens today, a turn
// is refused with 429 daily_token_limit and Retry-After (seconds to the
// next UTC day) before the model is called; other tenants are unaffected.
func TestDailyTokenLimit(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		e := newEnv(t, envOptions{postgres: postgres, engine: chat.Config{DailyTokenLimit: 100}})
		e.llm.SetDefault(llmtest.Script{Steps: llmtest.Words("VAT is 23%."), Usage: &llmtest.Usage{InputTokens: 60, OutputTokens: 10}})
		first := e.chat(map[string]any{"message": "What is VAT?"}, nil)
		if first.Status != http.StatusOK {
			t.Fatalf("first turn: %d %s", first.Status, first.Body)
		}
		convID := *first.metadata(t).ConversationID
		if second := e.chat(map[string]any{"conversationId": convID, "message": "And food?"}, nil); second.Status != http.StatusOK {
			t.Fatalf("second turn (70 of 100 tokens used): %d %s", second.Status, second.Body)
		}
		calls := len(e.llm.Requests())
		for name, body := range map[string]map[string]any{
			"existing conversation": {"conversationId": convID, "message": "And books?"},
			"new conversation":      {"message": "What is VRT?"},
			"stateless":             {"message": "What is VRT?", "stateless": true},
		} {
			refused := e.chat(body, nil)
			if refused.Status != http.StatusTooManyRequests || !strings.Contains(refused.Body, `"code":"daily_token_limit"`) {
				t.Errorf("%s over the limit: %d %s", name, refused.Status, refused.Body)
				continue
			}
			retry, err := strconv.Atoi(refused.Header.Get("Retry-After"))
			now := time.Now().UTC()
			untilMidnight := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC).Sub(now)
			if err != nil || retry < 1 || time.Duration(retry)*time.Second > untilMidnight+2*time.Second {
				t.Errorf("%s: Retry-After %q, want the seconds to the next UTC day (%s)", name, refused.Header.Get("Retry-After"), untilMidnight)
			}
		}
		if n := len(e.llm.Requests()); n != calls {
			t.Errorf("the model was called %d times over the limit", n-calls)
		}
		other := e.chat(map[string]any{"message": "What is VAT?"}, map[string]string{"X-Tenant-Id": "tenant-b"})
		if other.Status != http.StatusOK {
			t.Errorf("another tenant: %d %s", other.Status, other.Body)
		}
		// The refused turn left the conversation free.
		if got := len(e.export(convID).Turns); got != 2 {
			t.Errorf("turns stored: %d, want 2", got)
		}
	})
}
