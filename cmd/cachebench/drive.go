package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"regintel/shared/auth"
	"regintel/shared/chat"
	convmem "regintel/shared/conversation/memory"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/httpapi"
	"regintel/shared/llm"
	"regintel/shared/llm/llmtest"
	"regintel/shared/llm/openai"
	"regintel/shared/queue"
)

// turnStat is what one turn cost: its model calls' input tokens, the part
// the fake served from cache, and the output tokens.
type turnStat struct {
	conversation, turn     int
	input, cached, output  int
	calls, factsInPrompt   int
	firstInput, firstCache int
}

// bench is the chat API as deployed (handler, engine, in-memory store and
// graph) in front of the caching fake model.
type bench struct {
	fake   *llmtest.Server
	server *httptest.Server
}

func newBench(protocol, model string) (*bench, error) {
	fake := llmtest.NewUnstartedServer()
	fake.SetResponder(answer)
	fake.Start()
	now := time.Now()
	g, err := graphmem.NewSeeded(now)
	if err != nil {
		return nil, err
	}
	if err := g.LoadDataset(benchDataset(), now); err != nil {
		return nil, err
	}
	cfg := openai.Config{APIKey: "bench", BaseURL: fake.BaseURL(), Model: model, HTTPClient: fake.Client()}
	var provider llm.Provider = openai.NewResponses(cfg)
	if protocol == "chat" {
		provider = openai.NewChat(cfg)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := convmem.New()
	engine := chat.New(chat.Deps{Store: store, Graph: g, Provider: provider, Concepts: discard{}, Log: quiet}, chat.Config{Model: model})
	handler := httpapi.New(httpapi.Options{Auth: auth.Dev{DefaultTenant: "bench-tenant", DefaultUser: "bench-user"},
		Engine: engine, Conversations: store, Graph: g, GraphChanges: g, Log: quiet})
	return &bench{fake: fake, server: httptest.NewServer(handler)}, nil
}

func (b *bench) close() {
	b.server.Close()
	b.fake.Close()
}

// discard drops captured concepts: the bench measures the prompt, not the
// graph writes.
type discard struct{}

func (discard) Publish(context.Context, ...queue.Envelope) error { return nil }

// conversation asks questions in order in a new conversation and returns
// what each turn cost.
func (b *bench) conversation(number int, questions []string) ([]turnStat, error) {
	var stats []turnStat
	id := ""
	for i, q := range questions {
		before := len(b.fake.Requests())
		var err error
		if id, err = b.ask(id, q); err != nil {
			return nil, fmt.Errorf("conversation %d turn %d: %w", number, i+1, err)
		}
		s := turnStat{conversation: number, turn: i + 1}
		for k, r := range b.fake.Requests()[before:] {
			s.calls++
			s.input += r.InputTokens
			s.cached += r.CachedTokens
			s.output += answerTokens(r)
			if k == 0 {
				s.firstInput, s.firstCache = r.InputTokens, r.CachedTokens
				s.factsInPrompt = factLines(r)
			}
		}
		stats = append(stats, s)
	}
	return stats, nil
}

// ask posts one turn and reads its stream to the end.
func (b *bench) ask(conversationID, question string) (string, error) {
	body := map[string]any{"message": question, "profile": map[string]any{"personaType": "employee", "jurisdictions": []string{"IE"}}}
	if conversationID != "" {
		body["conversationId"] = conversationID
	}
	raw, _ := json.Marshal(body)
	resp, err := http.Post(b.server.URL+"/chat", "application/json", strings.NewReader(string(raw)))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	stream, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(stream), `"status":"ok"`) {
		return "", fmt.Errorf("HTTP %d: %.300s", resp.StatusCode, stream)
	}
	return resp.Header.Get("X-Conversation-Id"), nil
}

// factLines counts the graph's facts a request carries, wherever they are.
func factLines(r llmtest.RecordedRequest) int {
	n := 0
	for _, m := range r.Messages {
		if strings.Contains(m.Content, "<graph_facts>\n") {
			n += strings.Count(m.Content, "\n- ")
		}
	}
	return n
}
