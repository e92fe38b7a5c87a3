package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"regintel/shared/llm"
	"regintel/shared/llm/llmtest"
	"regintel/shared/llm/openai"
)

type providerCase struct {
	name     string
	protocol llmtest.Protocol
	build    func(srv *llmtest.Server, cfg openai.Config) llm.Provider
}

func providerCases() []providerCase {
	return []providerCase{
		{"responses", llmtest.ProtocolResponses, func(srv *llmtest.Server, cfg openai.Config) llm.Provider {
			cfg.BaseURL, cfg.HTTPClient = srv.BaseURL(), srv.Client()
			return openai.NewResponses(cfg)
		}},
		{"chat", llmtest.ProtocolChat, func(srv *llmtest.Server, cfg openai.Config) llm.Provider {
			cfg.BaseURL, cfg.HTTPClient = srv.BaseURL(), srv.Client()
			return openai.NewChat(cfg)
		}},
	}
}

var conceptsArgs = map[string]any{"concepts": []any{map[string]any{
	"domain": "TAX", "kind": "VAT", "jurisdiction": "IE", "prefLabel": "Value-Added Tax",
	"altLabels": []string{"VAT", "sales tax in Ireland"}, "definition": "A consumption tax on goods and services.",
}}}

func conceptsJSON(t *testing.T) string {
	t.Helper()
	raw, err := json.Marshal(conceptsArgs)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func baseRequest() llm.Request {
	return llm.Request{
		Model:  "gpt-test",
		System: "You are a regulatory assistant. Call capture_concepts.",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "What is VAT?"},
			{Role: llm.RoleAssistant, Content: "VAT is a consumption tax."},
			{Role: llm.RoleUser, Content: "What is the standard rate in Ireland?"},
		},
		Tools: []llm.Tool{{
			Name:        "capture_concepts",
			Description: "Capture SKOS-like regulatory concepts mentioned in this turn.",
			Parameters:  map[string]any{"type": "object", "properties": map[string]any{"concepts": map[string]any{"type": "array"}}, "required": []any{"concepts"}},
		}},
		Temperature: -1,
	}
}

// collect drains a stream, failing the test if it does not end in time.
func collect(t *testing.T, ch <-chan llm.Chunk) []llm.Chunk {
	t.Helper()
	var chunks []llm.Chunk
	timeout := time.After(10 * time.Second)
	for {
		select {
		case chunk, ok := <-ch:
			if !ok {
				return chunks
			}
			chunks = append(chunks, chunk)
		case <-timeout:
			t.Fatalf("stream did not end; got %d chunks so far", len(chunks))
		}
	}
}

func streamScript(t *testing.T, pc providerCase, script llmtest.Script) ([]llm.Chunk, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(t)
	srv.Enqueue(script)
	provider := pc.build(srv, openai.Config{APIKey: "sk-test"})
	ch, err := provider.Stream(context.Background(), baseRequest())
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	return collect(t, ch), srv
}

// summary renders chunks compactly: text is merged, tools/usage/errors are tagged.
func summary(chunks []llm.Chunk) string {
	var b strings.Builder
	inText := false
	for _, c := range chunks {
		if c.Type != llm.ChunkText && inText {
			b.WriteString("]")
			inText = false
		}
		switch c.Type {
		case llm.ChunkText:
			if !inText {
				b.WriteString("[text:")
				inText = true
			}
			b.WriteString(c.Delta)
		case llm.ChunkTool:
			fmt.Fprintf(&b, "[tool:%s]", c.ToolName)
		case llm.ChunkUsage:
			b.WriteString("[usage]")
		case llm.ChunkError:
			b.WriteString("[error]")
		}
	}
	if inText {
		b.WriteString("]")
	}
	return b.String()
}

func toolChunks(chunks []llm.Chunk) []llm.Chunk {
	var tools []llm.Chunk
	for _, c := range chunks {
		if c.Type == llm.ChunkTool {
			tools = append(tools, c)
		}
	}
	return tools
}

func assertSameJSON(t *testing.T, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("tool args are not JSON: %v: %q", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Fatalf("tool args = %s, want %s", gb, wb)
	}
}

func TestOrderings(t *testing.T) {
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			args := conceptsJSON(t)
			// A response that calls a tool ends with the call: text can only
			// come before it (the tool loop tests cover the next call).
			cases := []struct {
				name  string
				steps []llmtest.Step
				want  string
			}{
				{"text then tool", llmtest.Steps(llmtest.Words("VAT is 23% in Ireland."), llmtest.ToolCall("capture_concepts", args, 3)),
					"[text:VAT is 23% in Ireland.][tool:capture_concepts][usage]"},
				{"tool only", llmtest.Steps(llmtest.ToolCall("capture_concepts", args, 3)),
					"[tool:capture_concepts][usage]"},
				{"args over many deltas", llmtest.Steps(llmtest.Text("Answer."), llmtest.ToolCall("capture_concepts", args, len(args))),
					"[text:Answer.][tool:capture_concepts][usage]"},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					want := tc.want
					chunks, _ := streamScript(t, pc, llmtest.Script{Steps: tc.steps})
					if got := summary(chunks); got != want {
						t.Fatalf("chunks = %s\nwant     %s", got, want)
					}
					tools := toolChunks(chunks)
					assertSameJSON(t, tools[0].ArgsJSON, args)
				})
			}
		})
	}
}

func TestTwoToolCalls(t *testing.T) {
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			first := `{"concepts":[{"domain":"TAX","kind":"VAT","jurisdiction":"IE","prefLabel":"VAT"}]}`
			second := `{"concepts":[{"domain":"TAX","kind":"VRT","jurisdiction":"IE","prefLabel":"VRT"}]}`
			chunks, _ := streamScript(t, pc, llmtest.Script{Steps: llmtest.Steps(
				llmtest.Text("Both apply."),
				llmtest.ToolCall("capture_concepts", first, 5),
				llmtest.ToolCall("request_context", second, 7),
			)})
			if got, want := summary(chunks), "[text:Both apply.][tool:capture_concepts][tool:request_context][usage]"; got != want {
				t.Fatalf("chunks = %s, want %s", got, want)
			}
			tools := toolChunks(chunks)
			assertSameJSON(t, tools[0].ArgsJSON, first)
			assertSameJSON(t, tools[1].ArgsJSON, second)
		})
	}
}

func TestMalformedToolArgsArePassedRaw(t *testing.T) {
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			raw := `{"concepts":[{"domain":"TAX",`
			chunks, _ := streamScript(t, pc, llmtest.Script{Steps: llmtest.Steps(
				llmtest.Words("The answer still completes."), llmtest.ToolCall("capture_concepts", raw, 4))})
			if got, want := summary(chunks), "[text:The answer still completes.][tool:capture_concepts][usage]"; got != want {
				t.Fatalf("chunks = %s, want %s", got, want)
			}
			if got := string(toolChunks(chunks)[0].ArgsJSON); got != raw {
				t.Fatalf("args = %q, want raw %q", got, raw)
			}
		})
	}
}

func TestErrorEventMidStream(t *testing.T) {
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			chunks, _ := streamScript(t, pc, llmtest.Script{Steps: llmtest.Steps(
				llmtest.Words("Partial answer "), llmtest.StreamError("server_error", "boom"), llmtest.Words("never sent"))})
			if got, want := summary(chunks), "[text:Partial answer ][error]"; got != want {
				t.Fatalf("chunks = %s, want %s", got, want)
			}
			var perr *llm.ProviderError
			if !errors.As(chunks[len(chunks)-1].Err, &perr) {
				t.Fatalf("error %v is not a *llm.ProviderError", chunks[len(chunks)-1].Err)
			}
			if perr.Code != "server_error" || perr.Message != "boom" {
				t.Fatalf("error = %+v, want code server_error message boom", perr)
			}
		})
	}
}

func TestResponseFailed(t *testing.T) {
	chunks, _ := streamScript(t, providerCases()[0], llmtest.Script{Steps: llmtest.Steps(
		llmtest.Text("Partial"), llmtest.Failed("rate_limit_exceeded", "slow down"))})
	if got, want := summary(chunks), "[text:Partial][error]"; got != want {
		t.Fatalf("chunks = %s, want %s", got, want)
	}
	var perr *llm.ProviderError
	if !errors.As(chunks[len(chunks)-1].Err, &perr) || perr.Code != "rate_limit_exceeded" {
		t.Fatalf("error = %v, want rate_limit_exceeded", chunks[len(chunks)-1].Err)
	}
}

func TestDisconnectWithoutTerminalEventIsAnError(t *testing.T) {
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			chunks, _ := streamScript(t, pc, llmtest.Script{Steps: llmtest.Steps(
				llmtest.Text("Cut "), llmtest.ToolCall("capture_concepts", `{"concepts":[]}`, 2), llmtest.Disconnect())})
			if got := summary(chunks); !strings.HasSuffix(got, "[error]") || !strings.HasPrefix(got, "[text:Cut ]") {
				t.Fatalf("chunks = %s, want text then a final error", got)
			}
		})
	}
}

// An HTTP error before streaming is one error chunk carrying the status, and
// no retry happens by default.
func TestHTTP500BeforeStreaming(t *testing.T) {
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			chunks, srv := streamScript(t, pc, llmtest.HTTPError(http.StatusInternalServerError, "upstream broke"))
			if got, want := summary(chunks), "[error]"; got != want {
				t.Fatalf("chunks = %s, want %s", got, want)
			}
			var perr *llm.ProviderError
			if !errors.As(chunks[0].Err, &perr) || perr.StatusCode != 500 || perr.Message != "upstream broke" {
				t.Fatalf("error = %#v, want status 500 with the server message", chunks[0].Err)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("server saw %d requests, want 1 (no retries)", n)
			}
		})
	}
}

func TestRetryOnlyBeforeStreaming(t *testing.T) {
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.HTTPError(http.StatusServiceUnavailable, "busy"), llmtest.TextScript("Second try works."))
			provider := pc.build(srv, openai.Config{APIKey: "sk-test", MaxRetries: 1})
			ch, err := provider.Stream(context.Background(), baseRequest())
			if err != nil {
				t.Fatal(err)
			}
			if got, want := summary(collect(t, ch)), "[text:Second try works.][usage]"; got != want {
				t.Fatalf("chunks = %s, want %s", got, want)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Fatalf("server saw %d requests, want 2", n)
			}
		})
	}
}

func TestUsageReported(t *testing.T) {
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			chunks, _ := streamScript(t, pc, llmtest.Script{Steps: llmtest.Words("Counted answer."), Usage: &llmtest.Usage{InputTokens: 120, OutputTokens: 7}})
			last := chunks[len(chunks)-1]
			if last.Type != llm.ChunkUsage || last.Usage == nil {
				t.Fatalf("last chunk = %+v, want usage", last)
			}
			if *last.Usage != (llm.Usage{InputTokens: 120, OutputTokens: 7, TotalTokens: 127}) {
				t.Fatalf("usage = %+v", *last.Usage)
			}
		})
	}
}

func TestRequestCarriesPromptHistoryAndTools(t *testing.T) {
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			_, srv := streamScript(t, pc, llmtest.TextScript("ok"))
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			got := reqs[0]
			want := baseRequest()
			if got.Protocol != pc.protocol || !got.Stream || got.Model != "gpt-test" {
				t.Fatalf("protocol=%s stream=%v model=%q", got.Protocol, got.Stream, got.Model)
			}
			if got.System != want.System {
				t.Fatalf("system = %q, want %q", got.System, want.System)
			}
			if fmt.Sprint(got.Messages) != fmt.Sprint(want.Messages) {
				t.Fatalf("messages = %v, want %v", got.Messages, want.Messages)
			}
			if len(got.Tools) != 1 || got.Tools[0].Name != "capture_concepts" || got.Tools[0].Description == "" || got.Tools[0].Parameters["type"] != "object" {
				t.Fatalf("tools = %+v", got.Tools)
			}
			if got.Temperature != nil {
				t.Fatalf("temperature sent although the request left it to the provider: %v", *got.Temperature)
			}
			if auth := got.Header.Get("Authorization"); auth != "Bearer sk-test" {
				t.Fatalf("authorization header = %q", auth)
			}
			if pc.protocol == llmtest.ProtocolChat && !got.IncludeUsage {
				t.Fatal("chat request did not ask for stream usage")
			}
		})
	}
}

func TestContextCancellationStopsStream(t *testing.T) {
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Script{Steps: llmtest.Words(strings.Repeat("slow ", 200)), DeltaDelay: 20 * time.Millisecond})
			provider := pc.build(srv, openai.Config{APIKey: "sk-test"})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ch, err := provider.Stream(ctx, baseRequest())
			if err != nil {
				t.Fatal(err)
			}
			first := <-ch
			if first.Type != llm.ChunkText {
				t.Fatalf("first chunk = %+v", first)
			}
			cancel()
			start := time.Now()
			rest := collect(t, ch)
			if elapsed := time.Since(start); elapsed > 2*time.Second {
				t.Fatalf("stream took %v to stop after cancel", elapsed)
			}
			if len(rest) > 40 {
				t.Fatalf("got %d more chunks after cancel; the stream did not stop", len(rest))
			}
			if n := len(rest); n > 0 && rest[n-1].Type == llm.ChunkUsage {
				t.Fatal("stream completed despite cancellation")
			}
		})
	}
}

func TestIdleTimeout(t *testing.T) {
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Script{Steps: llmtest.Steps(llmtest.Text("Hello "), llmtest.Pause(5*time.Second), llmtest.Text("late"))})
			provider := pc.build(srv, openai.Config{APIKey: "sk-test", IdleTimeout: 200 * time.Millisecond})
			ch, err := provider.Stream(context.Background(), baseRequest())
			if err != nil {
				t.Fatal(err)
			}
			chunks := collect(t, ch)
			if got, want := summary(chunks), "[text:Hello ][error]"; got != want {
				t.Fatalf("chunks = %s, want %s", got, want)
			}
			var perr *llm.ProviderError
			if !errors.As(chunks[len(chunks)-1].Err, &perr) || perr.Code != "timeout" {
				t.Fatalf("error = %v, want timeout", chunks[len(chunks)-1].Err)
			}
		})
	}
}

func TestConcurrentStreams(t *testing.T) {
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.SetResponder(func(req llmtest.RecordedRequest) llmtest.Script {
				q := req.LastUserMessage()
				return llmtest.Script{Steps: llmtest.Steps(llmtest.Words("Echo: "+q),
					llmtest.ToolCallJSON("capture_concepts", map[string]any{"q": q}, 3))}
			})
			provider := pc.build(srv, openai.Config{APIKey: "sk-test"})
			const n = 50
			var wg sync.WaitGroup
			errs := make(chan error, n)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					req := baseRequest()
					q := fmt.Sprintf("question %d", i)
					req.Messages = []llm.Message{{Role: llm.RoleUser, Content: q}}
					ch, err := provider.Stream(context.Background(), req)
					if err != nil {
						errs <- err
						return
					}
					var text strings.Builder
					var args string
					for chunk := range ch {
						switch chunk.Type {
						case llm.ChunkText:
							text.WriteString(chunk.Delta)
						case llm.ChunkTool:
							args = string(chunk.ArgsJSON)
						case llm.ChunkError:
							errs <- chunk.Err
							return
						}
					}
					if text.String() != "Echo: "+q || args != fmt.Sprintf(`{"q":%q}`, q) {
						errs <- fmt.Errorf("stream %d: text %q args %s", i, text.String(), args)
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if got := len(srv.Requests()); got != n {
				t.Fatalf("server recorded %d requests, want %d", got, n)
			}
		})
	}
}

func TestEmptyRequestIsRejected(t *testing.T) {
	for _, pc := range providerCases() {
		srv := llmtest.NewServer(t)
		if _, err := pc.build(srv, openai.Config{}).Stream(context.Background(), llm.Request{}); err == nil {
			t.Fatalf("%s: Stream accepted a request without messages", pc.name)
		}
	}
}

func BenchmarkResponsesStream(b *testing.B) {
	srv := llmtest.NewServer(b)
	script := llmtest.Script{Steps: llmtest.Steps(llmtest.Words(strings.Repeat("word ", 100)),
		llmtest.ToolCallJSON("capture_concepts", conceptsArgs, 20))}
	srv.SetResponder(func(llmtest.RecordedRequest) llmtest.Script { return script })
	provider := openai.NewResponses(openai.Config{APIKey: "sk-test", BaseURL: srv.BaseURL(), HTTPClient: srv.Client()})
	req := baseRequest()
	b.ReportAllocs()
	for b.Loop() {
		ch, err := provider.Stream(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		for chunk := range ch {
			if chunk.Type == llm.ChunkError {
				b.Fatal(chunk.Err)
			}
		}
	}
}
