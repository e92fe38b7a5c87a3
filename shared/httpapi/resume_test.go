package httpapi_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"regintel/shared/conversation"
	convmem "regintel/shared/conversation/memory"
	convpg "regintel/shared/conversation/postgres"
	"regintel/shared/httpapi"
	"regintel/shared/llm/llmtest"
)

// slowAnswer is long enough, at its pace, to reconnect in the middle.
var slowAnswer = strings.Repeat("The rate is 23 percent. ", 12)

func slowScript() llmtest.Script {
	return llmtest.Script{Steps: llmtest.Words(slowAnswer), DeltaDelay: 15 * time.Millisecond}
}

// idFrame is one SSE frame with its id.
type idFrame struct {
	ID, Name string
	Data     json.RawMessage
}

// startAndDrop posts a question on e, reads the stream until it has
// carried some answer, and goes away. It returns the conversation and the
// frames read.
func startAndDrop(t *testing.T, e *env, path string) (string, []idFrame) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.server.URL+path, strings.NewReader(`{"message":"What is the VAT rate?"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	id := resp.Header.Get("X-Conversation-Id")
	var frames []idFrame
	var cur idFrame
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		line := lines.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			cur.ID = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.Data = json.RawMessage(strings.TrimPrefix(line, "data: "))
		case line == "" && cur.Name != "":
			frames = append(frames, cur)
			if cur.Name == "message" {
				return id, frames
			}
			cur = idFrame{}
		}
	}
	t.Fatalf("the stream ended before any answer: %+v", frames)
	return "", nil
}

func framesText(frames []idFrame) string {
	var b strings.Builder
	for _, f := range frames {
		if f.Name == "message" {
			var m struct{ Text string }
			_ = json.Unmarshal(f.Data, &m)
			b.WriteString(m.Text)
		}
	}
	return b.String()
}

// get sends a GET with headers to e.
func (e *env) get(path string, headers map[string]string) chatResponse {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.server.URL+path, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return e.send(req)
}

// waitStored waits until the conversation's turn is no longer streaming.
func waitStored(t *testing.T, e *env, id string) conversation.Turn {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if turns := e.export(id).Turns; len(turns) == 1 && turns[0].Status != conversation.TurnStreaming {
			return turns[0]
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the turn of %s was never stored", id)
	return conversation.Turn{}
}

// secondInstance is another handler over e's store, as another Lambda
// instance is over the same database.
func secondInstance(t *testing.T, e *env) *env {
	return newEnv(t, envOptions{store: e.store})
}

// A client that goes away mid-answer does not stop the turn; another
// instance sends the whole stream from its first event, live to its end,
// and the turn is stored once, whole, ok.
func TestReloadMidAnswerResumesOnAnotherInstance(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		a := newEnv(t, envOptions{postgres: postgres})
		b := secondInstance(t, a)
		a.llm.Enqueue(slowScript())
		id, _ := startAndDrop(t, a, "/chat")

		resumed := b.get("/chat/"+id+"/stream", nil)
		if resumed.Status != http.StatusOK || resumed.Header.Get("X-Conversation-Id") != id {
			t.Fatalf("resume: %d %s", resumed.Status, resumed.Body)
		}
		names := resumed.names()
		if names[0] != "start" || names[len(names)-1] != "done" || resumed.doneStatus(t) != "ok" {
			t.Fatalf("resumed events %v", names)
		}
		if resumed.text() != slowAnswer {
			t.Fatalf("resumed text = %q, want the whole answer", resumed.text())
		}
		if turn := waitStored(t, a, id); turn.Status != conversation.TurnOK || turn.AssistantText != slowAnswer {
			t.Fatalf("stored %s %q, want ok and the whole answer", turn.Status, turn.AssistantText)
		}
		if got := len(a.export(id).Turns); got != 1 {
			t.Fatalf("%d turns stored, want 1", got)
		}
		if again := b.get("/chat/"+id+"/stream", nil); again.Status != http.StatusNoContent || again.Body != "" {
			t.Fatalf("resume after the end: %d %q, want 204", again.Status, again.Body)
		}
	})
}

// While the answer streams, the conversation shows it so far.
func TestStreamingTurnShowsItsTextSoFar(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		e := newEnv(t, envOptions{postgres: postgres})
		e.llm.Enqueue(slowScript())
		id, _ := startAndDrop(t, e, "/chat")
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			turns := e.export(id).Turns
			if len(turns) == 1 && turns[0].Status == conversation.TurnStreaming && turns[0].AssistantText != "" {
				if !strings.HasPrefix(slowAnswer, turns[0].AssistantText) {
					t.Fatalf("text so far %q is not the start of the answer", turns[0].AssistantText)
				}
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatal("the streaming turn never showed any text")
	})
}

// The SSE stream's events carry ids; a reconnect with Last-Event-ID gets
// exactly the events after it.
func TestLastEventIDResumesAfterIt(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		a := newEnv(t, envOptions{postgres: postgres})
		a.llm.Enqueue(slowScript())
		id, seen := startAndDrop(t, a, "/chat")
		last := seen[len(seen)-1].ID
		if seen[0].ID != "1:0" || last == "" {
			t.Fatalf("frames without ids: %+v", seen)
		}
		resumed := secondInstance(t, a).get("/chat/"+id+"/stream", map[string]string{"Last-Event-ID": last})
		if resumed.Status != http.StatusOK || resumed.named("start") != nil {
			t.Fatalf("resume after %s: %d %v", last, resumed.Status, resumed.names())
		}
		if got := framesText(seen) + resumed.text(); got != slowAnswer {
			t.Fatalf("text before and after the reconnect = %q, want the answer once", got)
		}
	})
}

// The UI message stream resumes too, under the same message id as the
// turn's first stream.
func TestUIMessageStreamResumes(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.llm.Enqueue(slowScript())
	id, _ := startAndDrop(t, e, "/chat")
	resumed := e.get("/chat/"+id+"/stream?protocol=ui-message-stream", nil)
	if resumed.Status != http.StatusOK || resumed.Header.Get("X-Vercel-AI-UI-Message-Stream") != "v1" {
		t.Fatalf("resume: %d %v", resumed.Status, resumed.Header)
	}
	chunks := uiStream(t, resumed.Body)
	var text strings.Builder
	for _, c := range chunks {
		if c.Type == "text-delta" {
			text.WriteString(c.Delta)
		}
	}
	if chunks[0].Type != "start" || chunks[0].MessageID != httpapi.TurnMessageID(id, 1) || chunks[len(chunks)-1].FinishReason != "stop" {
		t.Fatalf("chunks %v, start %+v", chunkTypes(chunks), chunks[0])
	}
	if text.String() != slowAnswer {
		t.Fatalf("text = %q", text.String())
	}
}

// DELETE stops the running turn from any instance; it is stored
// interrupted with its partial answer. Another caller gets a 204: nothing
// of theirs runs under the id.
func TestDeleteStopsTheTurn(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		a := newEnv(t, envOptions{postgres: postgres})
		b := secondInstance(t, a)
		a.llm.Enqueue(slowScript())
		id, _ := startAndDrop(t, a, "/chat")
		if other := b.doWithTenant(http.MethodDelete, "/chat/"+id+"/stream", "tenant-b"); other != http.StatusNoContent {
			t.Fatalf("DELETE by another tenant: %d, want 204", other)
		}
		stop := b.do(http.MethodDelete, "/chat/"+id+"/stream", nil)
		if stop.Status != http.StatusAccepted {
			t.Fatalf("DELETE: %d %s", stop.Status, stop.Body)
		}
		turn := waitStored(t, a, id)
		if turn.Status != conversation.TurnInterrupted || turn.AssistantText == "" || len(turn.AssistantText) >= len(slowAnswer) ||
			!strings.HasPrefix(slowAnswer, turn.AssistantText) {
			t.Fatalf("stored %s %q, want interrupted with part of the answer", turn.Status, turn.AssistantText)
		}
		if again := b.do(http.MethodDelete, "/chat/"+id+"/stream", nil); again.Status != http.StatusNoContent {
			t.Fatalf("DELETE with nothing running: %d, want 204", again.Status)
		}
	})
}

// useChat with resume asks for a new chat's stream on mount, before its
// first message: an id never used, like another tenant's running
// conversation, is a 204 alike (no error to show, nothing to tell apart).
func TestResumeOfAnUnusedOrAnotherCallersIDIsNoContent(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.llm.Enqueue(slowScript())
	id, _ := startAndDrop(t, e, "/chat")
	if got := e.doWithTenant(http.MethodGet, "/chat/"+id+"/stream", "tenant-b"); got != http.StatusNoContent {
		t.Fatalf("another tenant: %d, want 204", got)
	}
	for _, path := range []string{"/chat/6f0e1a4c-1111-4c4c-8888-123456789abc/stream", "/chat/not-a-uuid/stream",
		"/chat/6f0e1a4c-1111-4c4c-8888-123456789abc/stream?protocol=ui-message-stream"} {
		if got := e.get(path, nil); got.Status != http.StatusNoContent || got.Body != "" {
			t.Fatalf("GET %s: %d %q, want 204 with no body", path, got.Status, got.Body)
		}
	}
	waitStored(t, e, id)
}

// The WorkflowChatTransport's resume: POST names the run (the
// conversation) in X-Workflow-Run-Id, and a reconnect with startIndex N
// goes on from the stream's chunk N, so the chunks read before and after
// are the whole stream once.
func TestWorkflowTransportResumesAtItsChunkIndex(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.llm.Enqueue(slowScript())
	req, _ := http.NewRequest(http.MethodPost, e.server.URL+"/chat?protocol=ui-message-stream", strings.NewReader(`{"message":"VAT?"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	runID := resp.Header.Get("X-Workflow-Run-Id")
	var before []string
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() && len(before) < 4 {
		if data, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
			before = append(before, "data: "+data)
		}
	}
	resp.Body.Close()
	if runID == "" || runID != resp.Header.Get("X-Conversation-Id") {
		t.Fatalf("X-Workflow-Run-Id %q, conversation %q", runID, resp.Header.Get("X-Conversation-Id"))
	}
	for _, bad := range []string{"-1", "", "x"} {
		if r := e.get("/chat/"+runID+"/stream?protocol=ui-message-stream&startIndex="+bad, nil); r.Status != http.StatusBadRequest {
			t.Fatalf("startIndex=%q: %d, want 400", bad, r.Status)
		}
	}
	resumed := e.get("/chat/"+runID+"/stream?protocol=ui-message-stream&startIndex=4", nil)
	if resumed.Status != http.StatusOK {
		t.Fatalf("resume: %d %s", resumed.Status, resumed.Body)
	}
	whole := strings.Join(before, "\n\n") + "\n\n" + resumed.Body
	chunks := uiStream(t, whole)
	var text strings.Builder
	for _, c := range chunks {
		if c.Type == "text-delta" {
			text.WriteString(c.Delta)
		}
	}
	types := chunkTypes(chunks)
	if types[0] != "start" || strings.Count(strings.Join(types, " "), "text-start") != 1 || text.String() != slowAnswer {
		t.Fatalf("chunks before and after: %v, text %q", types, text.String())
	}
}

// The live stream is the model's own text; what is recorded, and so what
// a reconnect replays, is redacted as the stored answer is.
func TestRecordedStreamIsRedactedForStorage(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		e := newEnv(t, envOptions{postgres: postgres})
		// Word by word at a model's pace: the number spans several writes.
		e.llm.Enqueue(llmtest.Script{Steps: llmtest.Words("Call the office on 087 123 4567 to check."), DeltaDelay: 40 * time.Millisecond})
		live := e.chat(map[string]any{"message": "Who do I call?"}, nil)
		id := live.Header.Get("X-Conversation-Id")
		if live.text() != "Call the office on 087 123 4567 to check." {
			t.Fatalf("live text %q, want the model's own", live.text())
		}
		replayed := e.get("/chat/"+id+"/stream", map[string]string{"Last-Event-ID": "1:0"})
		if replayed.Status != http.StatusOK || replayed.text() != "Call the office on [REDACTED:PHONE] to check." {
			t.Fatalf("replayed %d %q, want the redacted answer", replayed.Status, replayed.text())
		}
		if stored := e.export(id).Turns[0].AssistantText; stored != replayed.text() {
			t.Fatalf("stored %q, replayed %q", stored, replayed.text())
		}
	})
}

// WorkflowChatTransport given only its URL sends {messages} as text/plain
// (fetch's label for a string body), with no chat id and no protocol: the
// answer is the UI message stream, and the chat's first message, resent
// every turn, keeps the turns in one conversation.
func TestWorkflowTransportWithOnlyItsURL(t *testing.T) {
	e := newEnv(t, envOptions{})
	first := `{"id":"wf-first","role":"user","parts":[{"type":"text","text":"What is VAT?"}]}`
	e.llm.Enqueue(llmtest.TextScript("A tax on supplies."))
	one := e.post("/chat", "text/plain;charset=UTF-8", `{"messages":[`+first+`]}`, nil)
	runID := one.Header.Get("X-Workflow-Run-Id")
	if one.Status != http.StatusOK || runID == "" || one.Header.Get("X-Vercel-Ai-Ui-Message-Stream") != "v1" {
		t.Fatalf("first POST: %d %v %s", one.Status, one.Header, one.Body)
	}
	if chunks := uiStream(t, one.Body); chunks[len(chunks)-1].FinishReason != "stop" {
		t.Fatalf("first answer: %+v", chunks)
	}
	e.llm.Enqueue(llmtest.TextScript("Mostly 23%."))
	body := `{"messages":[` + first + `,{"id":"a1","role":"assistant","parts":[{"type":"text","text":"A tax on supplies."}]},` +
		`{"id":"wf-second","role":"user","parts":[{"type":"text","text":"And its rate?"}]}]}`
	two := e.post("/chat", "", body, nil)
	if two.Status != http.StatusOK || two.Header.Get("X-Workflow-Run-Id") != runID {
		t.Fatalf("second POST: %d, run %q want %q: %s", two.Status, two.Header.Get("X-Workflow-Run-Id"), runID, two.Body)
	}
	if turns := e.export(runID).Turns; len(turns) != 2 || turns[1].UserText != "And its rate?" {
		t.Fatalf("stored turns: %+v", turns)
	}
	if r := e.post("/chat", "text/html", `{"messages":[`+first+`]}`, nil); r.Status != http.StatusUnsupportedMediaType {
		t.Fatalf("text/html: %d, want 415", r.Status)
	}
	// A text/plain POST needs no preflight: from a page of an origin the
	// API does not allow, it is refused before any turn runs.
	foreign := e.post("/chat", "text/plain", `{"messages":[`+first+`]}`, map[string]string{"Origin": "https://attacker.example"})
	if foreign.Status != http.StatusUnsupportedMediaType {
		t.Fatalf("text/plain from a foreign origin: %d, want 415", foreign.Status)
	}
}

// A model that pauses mid-item does not get the item recorded in plain
// text: the recorder holds the undecided tail however long the pause, so
// what a reconnect replays is the stored answer, redacted whole. Each
// answer is cut inside its item, with a pause longer than the recorder's
// tick (160 ms) and one shorter (30 ms).
func TestPausingModelRecordsNoItemInPlainText(t *testing.T) {
	answers := map[string][2]string{
		"iban":    {"Refunds go to IE29 AIBK 93", "11 5212 3456 78 within ten days."},
		"email":   {"Write to mary.obr", "ien@example.ie about the claim."},
		"phone":   {"The office rang 087 12", "3 4567 about the refund."},
		"ppsn":    {"Your PPSN 12345", "67FA is on the statement."},
		"card":    {"The card 4111 1111 11", "11 1111 was charged the fee."},
		"eircode": {"The property at D02", " X285 is your main residence."},
		"name":    {"The letter came from Dr Aoife", " Byrne about the relief."},
	}
	forEachStore(t, func(t *testing.T, postgres bool) {
		for _, pause := range []time.Duration{160 * time.Millisecond, 30 * time.Millisecond} {
			for name, parts := range answers {
				t.Run(name+"/"+pause.String(), func(t *testing.T) {
					e := newEnv(t, envOptions{postgres: postgres})
					e.llm.Enqueue(llmtest.Script{Steps: llmtest.Steps(llmtest.Text(parts[0]), llmtest.Pause(pause), llmtest.Text(parts[1]))})
					live := e.chat(map[string]any{"message": "Where does it go?"}, nil)
					id := live.Header.Get("X-Conversation-Id")
					if live.text() != parts[0]+parts[1] {
						t.Fatalf("live text %q, want the model's own", live.text())
					}
					replayed := e.get("/chat/"+id+"/stream", map[string]string{"Last-Event-ID": "1:0"})
					stored := e.export(id).Turns[0].AssistantText
					if !strings.Contains(stored, "[REDACTED:") {
						t.Fatalf("stored %q, want the item redacted", stored)
					}
					if replayed.Status != http.StatusOK || replayed.text() != stored {
						t.Fatalf("replayed %d %q, want the stored %q", replayed.Status, replayed.text(), stored)
					}
				})
			}
		}
	})
}

// A Last-Event-ID not of the TURN:SEQ form the document states is the
// client's error (400), on every store; one of that form is a resume point
// even beyond the stored columns' range (no turn of ours, or after every
// event), so a finished turn's stream answers 204.
func TestLastEventIDOfTheStatedFormResumes(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		e := newEnv(t, envOptions{postgres: postgres})
		e.llm.Enqueue(llmtest.TextScript("VAT is 23%."))
		id := e.chat(map[string]any{"message": "What is VAT?"}, nil).Header.Get("X-Conversation-Id")
		for _, last := range []string{"1:-1", "one:two", "+1:0", "1:0:0", "1 :0", "12345678901:0", "1:12345678901"} {
			resp := e.get("/chat/"+id+"/stream", map[string]string{"Last-Event-ID": last})
			if resp.Status != http.StatusBadRequest || !strings.Contains(resp.Body, `"code":"invalid_request"`) {
				t.Errorf("Last-Event-ID %s: %d %s, want 400 invalid_request", last, resp.Status, resp.Body)
			}
		}
		for _, last := range []string{"1:2147483647", "1:2147483648", "2147483648:0", "0:0", "9999999999:9999999999"} {
			if resp := e.get("/chat/"+id+"/stream", map[string]string{"Last-Event-ID": last}); resp.Status != http.StatusNoContent {
				t.Errorf("Last-Event-ID %s after the turn ended: %d %s, want 204", last, resp.Status, resp.Body)
			}
		}
	})
}

// The export holds every row a conversation owns: its recorded stream
// (what a reconnect replays) and its sharing setting among them.
func TestExportHoldsRecordedStreamAndSharing(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		e := newEnv(t, envOptions{postgres: postgres, api: withCompatRoutes})
		e.llm.Enqueue(llmtest.TextScript("VAT is 23% in Ireland."))
		id := e.chat(map[string]any{"message": "What is VAT?"}, nil).Header.Get("X-Conversation-Id")
		req, _ := http.NewRequest(http.MethodPatch, e.server.URL+"/api/conversations/"+id, strings.NewReader(`{"shareAudience":"tenant","tenantAccess":"view"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Tenant-Id", "tenant-a")
		if resp := e.send(req); resp.Status >= 300 {
			t.Fatalf("set sharing: %d %s", resp.Status, resp.Body)
		}
		held := e.export(id)
		rs := held.RecordedStream
		if rs == nil || rs.TurnNumber != 1 || len(rs.Events) == 0 || rs.Events[0].Name != "start" || rs.Events[len(rs.Events)-1].Name != "done" {
			t.Fatalf("export's recorded stream = %+v, want turn 1's events from start to done", rs)
		}
		if sh := held.Sharing; sh == nil || sh.ShareAudience != "tenant" || sh.TenantAccess != "view" {
			t.Fatalf("export's sharing = %+v, want tenant/view", sh)
		}
	})
}

// withCompatRoutes serves the compatibility routes, with the sharing
// settings of the env's store.
func withCompatRoutes(o *httpapi.Options) {
	o.CompatAPI = true
	switch s := o.Conversations.(type) {
	case *convmem.Store:
		o.Sharing = convmem.NewSharing(s)
	case *convpg.Store:
		o.Sharing = convpg.NewSharing(s)
	}
}

// At most MaxStreamFollowers clients follow one conversation's stream at
// once, counted across instances: one more is refused with 429, a
// Retry-After and the API's error body; a follower that leaves gives its
// place back.
func TestResumeFollowersAreBounded(t *testing.T) {
	forEachStore(t, func(t *testing.T, postgres bool) {
		limit := func(o *httpapi.Options) { o.MaxStreamFollowers = 2 }
		a := newEnv(t, envOptions{postgres: postgres, api: limit})
		b := newEnv(t, envOptions{store: a.store, api: limit})
		a.llm.Enqueue(llmtest.Script{Steps: llmtest.Words(slowAnswer), DeltaDelay: 50 * time.Millisecond})
		id, _ := startAndDrop(t, a, "/chat")
		first := openResumed(t, a, id)
		defer first.Body.Close()
		second := openResumed(t, b, id)
		defer second.Body.Close()

		refused := b.get("/chat/"+id+"/stream", nil)
		var body struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if err := json.Unmarshal([]byte(refused.Body), &body); err != nil {
			t.Fatalf("refusal body %q: %v", refused.Body, err)
		}
		if refused.Status != http.StatusTooManyRequests || refused.Header.Get("Retry-After") == "" ||
			!strings.HasPrefix(refused.Header.Get("Content-Type"), "application/json") || body.Error.Code != "too_many_followers" {
			t.Fatalf("a third follower: %d %v %s", refused.Status, refused.Header, refused.Body)
		}

		// The first leaves: its place comes back once its handler sees it gone.
		_ = first.Body.Close()
		deadline := time.Now().Add(10 * time.Second)
		for {
			third := a.get("/chat/"+id+"/stream", nil)
			if third.Status != http.StatusTooManyRequests {
				if third.Status != http.StatusOK || third.doneStatus(t) != "ok" {
					t.Fatalf("a follower once a place was free: %d %s", third.Status, third.Body)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the place of a follower that left never came back")
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// openResumed opens GET /chat/{id}/stream on e and returns the response
// once its headers say it streams; the caller closes it.
func openResumed(t *testing.T, e *env, id string) *http.Response {
	t.Helper()
	resp, err := http.Get(e.server.URL + "/chat/" + id + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("resume: %d", resp.StatusCode)
	}
	// The first frame arrives once the place is taken and the replay begins.
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	return resp
}
