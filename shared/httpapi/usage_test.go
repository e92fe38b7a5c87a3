package httpapi_test

import (
	"encoding/json"
	"math"
	"net/http"
	"testing"

	"regintel/shared/chat"
	"regintel/shared/llm/llmtest"
	"regintel/shared/llm/pricing"
)

// usageOf is metadata.usage as a client reads it.
type usageOf struct {
	InputTokens       int      `json:"inputTokens"`
	OutputTokens      int      `json:"outputTokens"`
	CachedInputTokens *int     `json:"cachedInputTokens"`
	CostUSD           *float64 `json:"costUsd"`
	Calls             []struct {
		CachedInputTokens int      `json:"cachedInputTokens"`
		CostUSD           *float64 `json:"costUsd"`
	} `json:"calls"`
}

// metadataUsage reads metadata.usage from either stream protocol: the
// metadata event, or the finish chunk's messageMetadata.
func metadataUsage(t *testing.T, r chatResponse, ui bool) usageOf {
	t.Helper()
	var raw json.RawMessage
	if ui {
		chunks := uiChunks(t, r.Body)
		var finish struct {
			MessageMetadata struct {
				Usage json.RawMessage `json:"usage"`
			} `json:"messageMetadata"`
		}
		if err := json.Unmarshal([]byte(chunks[len(chunks)-2]), &finish); err != nil {
			t.Fatal(err)
		}
		raw = finish.MessageMetadata.Usage
	} else {
		ms := r.named("metadata")
		if len(ms) != 1 {
			t.Fatalf("metadata events: %d in %s", len(ms), r.Body)
		}
		var m struct {
			Usage json.RawMessage `json:"usage"`
		}
		if err := json.Unmarshal(ms[0].Data, &m); err != nil {
			t.Fatal(err)
		}
		raw = m.Usage
	}
	var u usageOf
	if err := json.Unmarshal(raw, &u); err != nil {
		t.Fatalf("usage %s: %v", raw, err)
	}
	return u
}

// The provider's cached input tokens and the turn's cost at the model's
// price reach metadata.usage on both stream protocols, whichever API the
// model speaks, and the stored turn keeps them; a model without a price
// reports no cost at all.
func TestMetadataUsageCarriesCachedTokensAndCost(t *testing.T) {
	prices := pricing.Table{"gpt-test": {Input: 1, CachedInput: 0.25, Output: 4}}
	// 976 fresh input tokens at $1, 1,024 cached at $0.25, 100 output at $4 per million.
	const want = (976*1 + 1024*0.25 + 100*4) / 1e6
	script := llmtest.Script{Steps: llmtest.Words("VAT is 23%."), Usage: &llmtest.Usage{InputTokens: 2000, OutputTokens: 100, CachedInputTokens: 1024}}
	for _, model := range []llmtest.Protocol{llmtest.ProtocolResponses, llmtest.ProtocolChat} {
		for _, ui := range []bool{false, true} {
			e := newEnv(t, envOptions{protocol: model, engine: chat.Config{Prices: prices}})
			e.llm.SetDefault(script)
			path := "/chat"
			if ui {
				path += "?protocol=ui-message-stream"
			}
			r := e.post(path, "application/json", `{"message":"What is VAT?"}`, nil)
			if r.Status != http.StatusOK {
				t.Fatalf("%s ui=%v: %d %s", model, ui, r.Status, r.Body)
			}
			u := metadataUsage(t, r, ui)
			if u.CachedInputTokens == nil || *u.CachedInputTokens != 1024 || u.CostUSD == nil || math.Abs(*u.CostUSD-want) > 1e-12 {
				t.Errorf("%s ui=%v: usage %+v (cost %v), want 1024 cached tokens costing $%v", model, ui, u, u.CostUSD, want)
			}
			if len(u.Calls) != 1 || u.Calls[0].CachedInputTokens != 1024 || u.Calls[0].CostUSD == nil || math.Abs(*u.Calls[0].CostUSD-want) > 1e-12 {
				t.Errorf("%s ui=%v: per-call usage %+v, want one call costing $%v", model, ui, u.Calls, want)
			}
			stored := e.export(r.Header.Get("X-Conversation-Id")).Turns
			if len(stored) != 1 || stored[0].Usage.CachedInputTokens != 1024 || stored[0].Usage.CostUSD == nil {
				t.Errorf("%s ui=%v: stored turns %+v", model, ui, stored)
			}
		}
	}
	unpriced := newEnv(t, envOptions{})
	unpriced.llm.SetDefault(script)
	r := unpriced.chat(map[string]any{"message": "What is VAT?"}, nil)
	if u := metadataUsage(t, r, false); u.CostUSD != nil || u.CachedInputTokens == nil || *u.CachedInputTokens != 1024 {
		t.Errorf("a model without a price: usage %+v, want cached tokens and no costUsd", u)
	}
}
