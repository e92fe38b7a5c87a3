package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"regintel/shared/chat"
	"regintel/shared/conversation"
	"regintel/shared/llm/llmtest"
)

// An answer past AnswerBoundMultiple output allowances is cut: the model
// is no longer read, the client's stream ends properly in either
// protocol, and the turn is stored interrupted with the text so far. An
// answer within the bound is untouched.
func TestAnswerIsCutPastItsBound(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		const allowance = 256 // bound: 512 tokens
		long := strings.Repeat("The tax credit is claimed once per year. ", 10000)[:400000]
		short := "The tax credit is claimed once per year."
		cases := []struct {
			name, protocol, answer string
			cut                    bool
		}{
			{"sse long", "", long, true},
			{"ui long", "ui-message-stream", long, true},
			{"sse short", "", short, false},
			{"ui short", "ui-message-stream", short, false},
		}
		e := newEnv(t, envOptions{postgres: postgres, engine: chat.Config{OutputAllowance: allowance}})
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				steps := textInDeltas(tc.answer, 1000)
				if tc.cut {
					// A model that would go on for a minute more: the turn
					// ends now only if it stopped reading it.
					steps = append(steps, llmtest.Pause(time.Minute), llmtest.Text(" More."))
				}
				e.llm.Enqueue(llmtest.Script{Steps: steps})
				var headers map[string]string
				if tc.protocol != "" {
					headers = map[string]string{"X-Stream-Protocol": tc.protocol}
				}
				resp := e.chat(map[string]any{"message": "How often is the tax credit claimed?"}, headers)
				if resp.Status != 200 {
					t.Fatalf("chat: %d %s", resp.Status, resp.Body)
				}
				if len(resp.Body) > 200000 {
					t.Errorf("the stream carried %d bytes of a %d-character answer", len(resp.Body), len(tc.answer))
				}
				checkBoundedEnd(t, resp, tc.protocol, tc.cut)
				checkStoredBound(t, e, resp.Header.Get("X-Conversation-Id"), tc.answer, tc.cut, allowance)
			})
		}
	})
}

// checkStoredBound: a cut answer is stored interrupted with the text so
// far, cut past twice the allowance (about 4 bytes a token) and not long
// after; an answer within the bound is stored ok and whole.
func checkStoredBound(t *testing.T, e *env, conversationID, answer string, cut bool, allowance int) {
	t.Helper()
	held := e.export(conversationID)
	if len(held.Turns) != 1 {
		t.Fatalf("stored %d turns", len(held.Turns))
	}
	stored := held.Turns[0]
	want := conversation.TurnOK
	if cut {
		want = conversation.TurnInterrupted
	}
	if stored.Status != want {
		t.Errorf("stored status %q, want %q", stored.Status, want)
	}
	if !strings.HasPrefix(answer, stored.AssistantText) {
		t.Fatalf("stored text is not the answer so far (%d bytes)", len(stored.AssistantText))
	}
	if !cut && stored.AssistantText != answer {
		t.Errorf("an answer within the bound was stored as %q", stored.AssistantText)
	}
	// Cut past 512 tokens (about 4 bytes each), not before, and
	// not long after.
	if cut && (len(stored.AssistantText) < 2*allowance || len(stored.AssistantText) > 40*allowance) {
		t.Errorf("stored %d bytes of the cut answer", len(stored.AssistantText))
	}
}

// textInDeltas streams text in deltas of n bytes.
func textInDeltas(text string, n int) []llmtest.Step {
	var steps []llmtest.Step
	for len(text) > n {
		steps = append(steps, llmtest.Text(text[:n]))
		text = text[n:]
	}
	return append(steps, llmtest.Text(text))
}

// checkBoundedEnd: a cut answer's stream ends with its metadata and done
// (interrupted, reason length) on SSE, or finish "length" and [DONE] on
// the UI message stream; an answer within the bound ends as ok.
func checkBoundedEnd(t *testing.T, resp chatResponse, protocol string, cut bool) {
	t.Helper()
	if protocol != "" {
		chunks := uiStream(t, resp.Body)
		last := chunks[len(chunks)-1]
		want := "stop"
		if cut {
			want = "length"
		}
		if last.Type != "finish" || last.FinishReason != want || last.MessageMetadata == nil {
			t.Errorf("last chunk %+v, want finish %q with metadata", last, want)
		}
		return
	}
	done := resp.named("done")
	if len(done) != 1 {
		t.Fatalf("done events: %v", resp.names())
	}
	var data map[string]string
	if err := json.Unmarshal(done[0].Data, &data); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"status": "ok"}
	if cut {
		want = map[string]string{"status": "interrupted", "reason": chat.DoneReasonLength}
	}
	if len(data) != len(want) || data["status"] != want["status"] || data["reason"] != want["reason"] {
		t.Errorf("done %v, want %v", data, want)
	}
	if names := resp.names(); names[len(names)-2] != "metadata" {
		t.Errorf("the stream ends %v, want metadata before done", names)
	}
	if cut && !strings.Contains(resp.warnings(), "cut at its length limit") {
		t.Errorf("no warning says the answer was cut: %q", resp.warnings())
	}
}
