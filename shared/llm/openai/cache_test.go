package openai_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"regintel/shared/llm"
	"regintel/shared/llm/llmtest"
	"regintel/shared/llm/openai"
)

// The request's cache key and the configured retention reach the provider
// as prompt_cache_key and prompt_cache_retention; unset, neither is sent.
func TestPromptCacheKeyAndRetentionAreSent(t *testing.T) {
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			req := llm.Request{Model: "gpt-4.1", Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}, Temperature: -1}
			for _, tc := range []struct{ key, retention string }{{"pc-1", "24h"}, {"", ""}} {
				p := pc.build(srv, openai.Config{APIKey: "k", PromptCacheRetention: tc.retention})
				req.CacheKey = tc.key
				chunks, err := p.Stream(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				for range chunks {
				}
				got, _ := srv.LastRequest()
				if got.PromptCacheKey != tc.key || got.PromptCacheRetention != tc.retention {
					t.Errorf("sent key %q retention %q, want %q %q", got.PromptCacheKey, got.PromptCacheRetention, tc.key, tc.retention)
				}
				if tc.key == "" && strings.Contains(string(got.Body), "prompt_cache") {
					t.Errorf("unset cache fields were sent: %s", got.Body)
				}
			}
		})
	}
}

// A request's output bound reaches the provider under each protocol's own
// name (Responses: max_output_tokens; Chat Completions:
// max_completion_tokens); unset, none is sent.
func TestMaxOutputTokensIsSent(t *testing.T) {
	names := map[string]string{"responses": "max_output_tokens", "chat": "max_completion_tokens"}
	for _, pc := range providerCases() {
		t.Run(pc.name, func(t *testing.T) {
			field := names[pc.name]
			if field == "" {
				t.Fatalf("no field name for provider case %q", pc.name)
			}
			srv := llmtest.NewServer(t)
			p := pc.build(srv, openai.Config{APIKey: "k"})
			for _, limit := range []int{4096, 0} {
				req := llm.Request{Model: "gpt-4.1", Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}, Temperature: -1, MaxOutputTokens: limit}
				chunks, err := p.Stream(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				for range chunks {
				}
				got, _ := srv.LastRequest()
				var body map[string]any
				if err := json.Unmarshal(got.Body, &body); err != nil {
					t.Fatal(err)
				}
				sent, ok := body[field].(float64)
				if limit > 0 && (!ok || int(sent) != limit) {
					t.Errorf("%s = %v, want %d", field, body[field], limit)
				}
				if limit == 0 && (ok || body["max_tokens"] != nil) {
					t.Errorf("an unset bound was sent: %s", got.Body)
				}
			}
		})
	}
}
