package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"regintel/shared/chat"
	"regintel/shared/conversation"
	convmem "regintel/shared/conversation/memory"
	"regintel/shared/llm/llmtest"
	"regintel/shared/llm/pricing"
)

// A turn of these tests charges a worst case of one call: the default
// budget and a 100-token output allowance.
var oneCallCap = chat.Config{DailyTokenLimit: 2000, MaxModelCalls: 1, OutputAllowance: 100}

func worstCaseOfOneCall() int { return chat.DefaultTokenBudget + 100 }

// Forty concurrent turns of one tenant against a 2,000-token day: what
// they used, as their metadata reports it, stays at or below the cap plus
// one turn's charge, and the rest are refused with 429 before the model
// is called.
func TestDailyCapHoldsUnderConcurrentTurns(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		e := newEnv(t, envOptions{postgres: postgres, engine: oneCallCap})
		e.llm.SetDefault(llmtest.Script{Steps: llmtest.Words("VAT is charged at 23 percent."),
			DeltaDelay: 2e6, Usage: &llmtest.Usage{InputTokens: 1200, OutputTokens: 300}})
		const turns = 40
		var wg sync.WaitGroup
		var mu sync.Mutex
		used, answered, refused := 0, 0, 0
		for range turns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := e.chat(map[string]any{"message": "What is VAT?"}, nil)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case r.Status == http.StatusOK:
					answered++
					used += r.metadata(t).Usage.TotalTokens
				case r.Status == http.StatusTooManyRequests && strings.Contains(r.Body, `"code":"daily_token_limit"`):
					refused++
				default:
					t.Errorf("turn: %d %s", r.Status, r.Body)
				}
			}()
		}
		wg.Wait()
		t.Logf("%d turns answered using %d tokens, %d refused", answered, used, refused)
		if limit := oneCallCap.DailyTokenLimit + worstCaseOfOneCall(); used > limit {
			t.Errorf("%d concurrent turns used %d tokens; the cap allows at most %d", turns, used, limit)
		}
		if answered == 0 || refused == 0 {
			t.Errorf("answered %d, refused %d: want some of each", answered, refused)
		}
		if n := len(e.llm.Requests()); n != answered {
			t.Errorf("the model was called %d times for %d answered turns", n, answered)
		}
	})
}

// A stateless turn stores nothing but counts towards its tenant's day.
func TestDailyCapCountsStatelessTurns(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		e := newEnv(t, envOptions{postgres: postgres, engine: chat.Config{DailyTokenLimit: 100}})
		e.llm.SetDefault(llmtest.Script{Steps: llmtest.Words("VAT is 23%."), Usage: &llmtest.Usage{InputTokens: 50, OutputTokens: 10}})
		stateless := map[string]any{"message": "What is VAT?", "stateless": true}
		for i := range 2 {
			if r := e.chat(stateless, nil); r.Status != http.StatusOK {
				t.Fatalf("stateless turn %d (%d of 100 tokens used): %d %s", i+1, 60*i, r.Status, r.Body)
			}
		}
		if r := e.chat(stateless, nil); r.Status != http.StatusTooManyRequests {
			t.Errorf("a stateless turn after 120 of 100 tokens: %d %s", r.Status, r.Body)
		}
		if r := e.chat(map[string]any{"message": "What is VAT?"}, nil); r.Status != http.StatusTooManyRequests {
			t.Errorf("a stored turn after 120 stateless tokens of 100: %d %s", r.Status, r.Body)
		}
	})
}

// A turn cut off before its usage arrived is stored with our estimate of
// what it used (its prompt and the text streamed), and that counts
// towards the cap.
func TestDailyCapCountsCutOffTurns(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		cfg := chat.Config{DailyTokenLimit: 1}
		e := newEnv(t, envOptions{postgres: postgres, engine: cfg})
		e.llm.Enqueue(llmtest.Script{Steps: append(llmtest.Words("Restaurant meals are charged at the reduced rate of"), llmtest.Disconnect())})
		r := e.chat(map[string]any{"message": "What VAT rate applies to restaurant meals?"}, nil)
		if r.Status != http.StatusOK || len(r.named("error")) != 1 {
			t.Fatalf("cut-off turn: %d %s", r.Status, r.Body)
		}
		convID := r.Header.Get("X-Conversation-Id")
		turns := e.export(convID).Turns
		if len(turns) != 1 {
			t.Fatalf("stored %d turns", len(turns))
		}
		u := turns[0].Usage
		if u.InputTokens < 100 || u.OutputTokens < 5 || u.TotalTokens != u.InputTokens+u.OutputTokens || !u.Estimated {
			t.Errorf("cut-off turn stored with usage %+v; want the prompt (over 100 tokens) and the streamed words, marked estimated", u)
		}
		e.llm.SetDefault(llmtest.TextScript("Answer."))
		if again := e.chat(map[string]any{"message": "And takeaway?"}, nil); again.Status != http.StatusTooManyRequests {
			t.Errorf("a turn after the cut-off one used the day's tokens: %d %s", again.Status, again.Body)
		}
	})
}

// failingLedger is a store whose cap ledger is down.
type failingLedger struct{ *convmem.Store }

func (failingLedger) ChargeTokens(context.Context, string, conversation.TokenCharge, conversation.DailyLimits) (conversation.TokenCharge, error) {
	return conversation.TokenCharge{}, errors.New("connection refused")
}

// When the cap cannot be charged the turn is refused with 503
// usage_unavailable before the model is called (TENANT_CAP_ON_ERROR=closed,
// the default); with open it runs.
func TestDailyCapFailsClosed(t *testing.T) {
	store := failingLedger{convmem.New()}
	closed := newEnv(t, envOptions{store: store, engine: chat.Config{DailyTokenLimit: 1000}})
	closed.llm.SetDefault(llmtest.TextScript("Answer."))
	for _, body := range []map[string]any{{"message": "What is VAT?"}, {"message": "What is VAT?", "stateless": true}} {
		r := closed.chat(body, nil)
		if r.Status != http.StatusServiceUnavailable || !strings.Contains(r.Body, `"code":"usage_unavailable"`) || r.Header.Get("Retry-After") == "" {
			t.Errorf("turn with the ledger down: %d %s", r.Status, r.Body)
		}
	}
	if n := len(closed.llm.Requests()); n != 0 {
		t.Errorf("the model was called %d times with the cap unchecked", n)
	}
	open := newEnv(t, envOptions{store: store, engine: chat.Config{DailyTokenLimit: 1000, CapOnError: chat.CapOpen}})
	open.llm.SetDefault(llmtest.TextScript("Answer."))
	if r := open.chat(map[string]any{"message": "What is VAT?"}, nil); r.Status != http.StatusOK {
		t.Errorf("TENANT_CAP_ON_ERROR=open with the ledger down: %d %s", r.Status, r.Body)
	}
}

// A daily cost limit refuses a tenant's turns with 429 daily_cost_limit
// once the day's cost at the model's price reached it.
func TestDailyCostLimit(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		prices := pricing.Table{"gpt-test": {Input: 1, CachedInput: 0.25, Output: 4}}
		e := newEnv(t, envOptions{postgres: postgres, engine: chat.Config{DailyCostLimitUSD: 0.002, Prices: prices, MaxModelCalls: 1}})
		// $0.0014 a turn: 1,000 input tokens at $1 and 100 output at $4 per million.
		e.llm.SetDefault(llmtest.Script{Steps: llmtest.Words("VAT is 23%."), Usage: &llmtest.Usage{InputTokens: 1000, OutputTokens: 100}})
		for i := range 2 {
			if r := e.chat(map[string]any{"message": "What is VAT?"}, nil); r.Status != http.StatusOK {
				t.Fatalf("turn %d ($%.4f of $0.002 spent): %d %s", i+1, 0.0014*float64(i), r.Status, r.Body)
			}
		}
		r := e.chat(map[string]any{"message": "What is VAT?", "stateless": true}, nil)
		if r.Status != http.StatusTooManyRequests || !strings.Contains(r.Body, `"code":"daily_cost_limit"`) || r.Header.Get("Retry-After") == "" {
			t.Errorf("a turn after $0.0028 of $0.002: %d %s", r.Status, r.Body)
		}
		if n := len(e.llm.Requests()); n != 2 {
			t.Errorf("the model was called %d times, want 2", n)
		}
	})
}
