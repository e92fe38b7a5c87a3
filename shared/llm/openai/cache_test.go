package openai_test

import (
	"context"
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
