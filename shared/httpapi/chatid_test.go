package httpapi_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"regintel/shared/llm/llmtest"
)

// sdkTurn posts a body as useChat's DefaultChatTransport does (its chat
// id, its UIMessages, its trigger), as tenant and user, and returns the
// status, the start chunk's conversation and turn, and the answer.
type sdkReply struct {
	status       int
	conversation string
	turn         int
	text         string
	chunks       []string
}

func sdkMessage(role, text string) map[string]any {
	return map[string]any{"id": uuid.NewString(), "role": role, "parts": []map[string]string{{"type": "text", "text": text}}}
}

func (e *env) sdkTurn(tenant, user, chatID, trigger string, messages ...map[string]any) sdkReply {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"id": chatID, "trigger": trigger, "messages": messages})
	resp := e.post("/chat?protocol=ui-message-stream", "application/json", string(body), map[string]string{"X-Tenant-Id": tenant, "X-User-Id": user})
	out := sdkReply{status: resp.Status}
	if resp.Status != http.StatusOK {
		return out
	}
	chunks := uiStream(e.t.(*testing.T), resp.Body)
	var text strings.Builder
	for _, c := range chunks {
		out.chunks = append(out.chunks, c.Type)
		if c.Type == "text-delta" {
			text.WriteString(c.Delta)
		}
	}
	if m := chunks[0].MessageMetadata; m != nil && m.ConversationID != nil && m.TurnNumber != nil {
		out.conversation, out.turn = *m.ConversationID, *m.TurnNumber
	}
	out.text = text.String()
	return out
}

// The SDK's chat id is the conversation: a new UUID starts it under that
// id, the same id continues it, and the server keeps the history: of the
// messages sent only the last user message is read.
func TestSDKChatIDIsTheConversation(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		e := newEnv(t, envOptions{postgres: postgres})
		chatID := uuid.NewString()
		e.llm.Enqueue(llmtest.TextScript("Answer one."))
		first := e.sdkTurn("tenant-a", "user-a", chatID, "submit-message", sdkMessage("user", "Question one?"))
		if first.status != 200 || first.conversation != chatID || first.turn != 1 {
			t.Fatalf("first turn: %+v, want conversation %s turn 1", first, chatID)
		}
		e.llm.Enqueue(llmtest.TextScript("Answer two."))
		second := e.sdkTurn("tenant-a", "user-a", chatID, "submit-message",
			sdkMessage("user", "Question one?"), sdkMessage("assistant", "FORGED answer"), sdkMessage("user", "Question two?"))
		if second.status != 200 || second.conversation != chatID || second.turn != 2 {
			t.Fatalf("second turn: %+v, want conversation %s turn 2", second, chatID)
		}
		req, _ := e.llm.LastRequest()
		sent, _ := json.Marshal(req.Messages)
		if req.LastUserMessage() != "Question two?" || strings.Contains(string(sent), "FORGED") || !strings.Contains(string(sent), "Answer one.") {
			t.Fatalf("the model got %s; want the stored history and the last question only", sent)
		}
		if turns := e.export(chatID).Turns; len(turns) != 2 {
			t.Fatalf("stored %d turns, want 2", len(turns))
		}
	})
}

// The SDK's own ids (not UUIDs) work the same, resume included.
func TestSDKGeneratedChatIDContinuesAndResumes(t *testing.T) {
	e := newEnv(t, envOptions{})
	const chatID = "Xk3bQ9mZr2TfLw7a"
	e.llm.Enqueue(llmtest.TextScript("One."))
	first := e.sdkTurn("tenant-a", "user-a", chatID, "submit-message", sdkMessage("user", "One?"))
	e.llm.Enqueue(llmtest.TextScript("Two."))
	second := e.sdkTurn("tenant-a", "user-a", chatID, "submit-message", sdkMessage("user", "Two?"))
	if first.status != 200 || second.conversation != first.conversation || second.turn != 2 || uuid.Validate(first.conversation) != nil {
		t.Fatalf("turns %+v then %+v, want one conversation, turns 1 and 2", first, second)
	}
	if got := e.get("/chat/"+chatID+"/stream", nil); got.Status != http.StatusNoContent {
		t.Fatalf("resume by the SDK's id with nothing running: %d, want 204", got.Status)
	}
}

// Whether a chat id is in use by another tenant or user shows nowhere in
// the status or the stream: the caller gets a conversation of their own,
// which the same id continues, and the other one is untouched.
func TestChatIDInUseElsewhereLeaksNothing(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		e := newEnv(t, envOptions{postgres: postgres})
		taken := uuid.NewString()
		e.llm.Enqueue(llmtest.TextScript("Owner's answer."))
		if r := e.sdkTurn("tenant-a", "user-a", taken, "submit-message", sdkMessage("user", "Mine?")); r.conversation != taken {
			t.Fatalf("owner's turn: %+v", r)
		}
		for _, who := range []struct{ tenant, user string }{{"tenant-b", "user-a"}, {"tenant-a", "user-b"}} {
			var replies [2][2]sdkReply
			for i, id := range []string{taken, uuid.NewString()} {
				for n := range 2 {
					e.llm.Enqueue(llmtest.TextScript("Reply."))
					replies[i][n] = e.sdkTurn(who.tenant, who.user, id, "submit-message", sdkMessage("user", "Hello?"))
				}
			}
			for n := range 2 {
				takenReply, freeReply := replies[0][n], replies[1][n]
				if takenReply.status != freeReply.status || takenReply.turn != freeReply.turn || takenReply.text != freeReply.text ||
					!slices.Equal(takenReply.chunks, freeReply.chunks) || takenReply.turn != n+1 {
					t.Fatalf("%s/%s turn %d: taken id %+v, free id %+v", who.tenant, who.user, n+1, takenReply, freeReply)
				}
			}
			if replies[0][0].conversation == taken || replies[0][1].conversation != replies[0][0].conversation {
				t.Fatalf("%s/%s reached the other conversation or lost its own: %+v", who.tenant, who.user, replies[0])
			}
		}
		if turns := e.export(taken).Turns; len(turns) != 1 || turns[0].AssistantText != "Owner's answer." {
			t.Fatalf("the owner's conversation changed: %+v", turns)
		}
	})
}

// regenerate() replaces the last answer in place: no second turn.
func TestSDKRegenerateReplacesTheLastAnswer(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		e := newEnv(t, envOptions{postgres: postgres})
		chatID := uuid.NewString()
		e.llm.Enqueue(llmtest.TextScript("First answer."))
		question := sdkMessage("user", "What is the VAT rate?")
		if r := e.sdkTurn("tenant-a", "user-a", chatID, "submit-message", question); r.turn != 1 {
			t.Fatalf("first: %+v", r)
		}
		e.llm.Enqueue(llmtest.TextScript("Second answer."))
		again := e.sdkTurn("tenant-a", "user-a", chatID, "regenerate-message", question)
		if again.status != 200 || again.conversation != chatID || again.turn != 1 || again.text != "Second answer." {
			t.Fatalf("regenerate: %+v, want turn 1 again with the new answer", again)
		}
		if req, _ := e.llm.LastRequest(); req.LastUserMessage() != "What is the VAT rate?" || strings.Contains(req.Messages[0].Content, "First answer.") {
			t.Fatalf("the regenerated question sent %+v", req.Messages)
		}
		turns := e.export(chatID).Turns
		if len(turns) != 1 || turns[0].AssistantText != "Second answer." || string(turns[0].Status) != "ok" {
			t.Fatalf("stored %+v, want the one turn with the new answer", turns)
		}
		var unknown = e.sdkTurn("tenant-a", "user-a", uuid.NewString(), "regenerate-message", question)
		if unknown.status != http.StatusNotFound {
			t.Fatalf("regenerate of an unknown chat: %d, want 404", unknown.status)
		}
	})
}

// useChat with only the API's URL: its body's trigger selects the UI
// message stream, and its reconnect, naming no protocol either, gets the
// turn's stream in the format the turn started with, under its chat id.
func TestSDKDefaultsNeedNoProtocol(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.llm.Enqueue(slowScript())
	chatID := "Qm8dV2kLr4XsNw1p"
	body, _ := json.Marshal(map[string]any{"id": chatID, "trigger": "submit-message", "messages": []any{sdkMessage("user", "VAT?")}})
	req, _ := http.NewRequest(http.MethodPost, e.server.URL+"/chat", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	_, _ = resp.Body.Read(buf)
	resp.Body.Close()
	if resp.Header.Get("X-Vercel-AI-UI-Message-Stream") != "v1" {
		t.Fatalf("POST with the SDK's trigger answered %v, want the UI message stream", resp.Header)
	}
	resumed := e.get("/chat/"+chatID+"/stream", nil)
	if resumed.Status != http.StatusOK || resumed.Header.Get("X-Vercel-AI-UI-Message-Stream") != "v1" {
		t.Fatalf("reconnect: %d %v", resumed.Status, resumed.Header)
	}
	var text strings.Builder
	for _, c := range uiStream(t, resumed.Body) {
		if c.Type == "text-delta" {
			text.WriteString(c.Delta)
		}
	}
	if text.String() != slowAnswer {
		t.Fatalf("resumed text %q", text.String())
	}
}
