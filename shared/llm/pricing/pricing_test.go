package pricing_test

import (
	"math"
	"testing"

	"regintel/shared/llm"
	"regintel/shared/llm/pricing"
)

func TestCostBillsCachedInputAtItsOwnPrice(t *testing.T) {
	table := pricing.Defaults()
	for _, tc := range []struct {
		model string
		usage llm.Usage
		want  float64
	}{
		// 9,000 fresh input at $0.40, 1,000 cached at $0.10, 500 output at $1.60 per million.
		{"gpt-4.1-mini", llm.Usage{InputTokens: 10000, CachedInputTokens: 1000, OutputTokens: 500}, 0.0036 + 0.0001 + 0.0008},
		{"gpt-4.1", llm.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, 10},
		{"gpt-4.1-nano", llm.Usage{InputTokens: 2048, CachedInputTokens: 2048}, 2048 * 0.025 / 1e6},
		{"gpt-4o-mini", llm.Usage{InputTokens: 1_000_000, CachedInputTokens: 500_000, OutputTokens: 0}, 0.075 + 0.0375},
		{"gpt-4.1-mini-2025-04-14", llm.Usage{OutputTokens: 1_000_000}, 1.60},
	} {
		got, ok := table.Cost(tc.model, tc.usage)
		if !ok || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s %+v: $%v (%v), want $%v", tc.model, tc.usage, got, ok, tc.want)
		}
	}
}

func TestUnknownModelHasNoCost(t *testing.T) {
	if cost, ok := pricing.Defaults().Cost("gpt-test", llm.Usage{InputTokens: 10}); ok {
		t.Errorf("a model without a price cost $%v", cost)
	}
	custom := pricing.Defaults().With(pricing.Table{"gpt-test": {Input: 1, Output: 2}, "gpt-4.1": {Input: 3}})
	if cost, ok := custom.Cost("gpt-test", llm.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}); !ok || cost != 3 {
		t.Errorf("a configured price: $%v (%v), want $3", cost, ok)
	}
	if cost, _ := custom.Cost("gpt-4.1", llm.Usage{InputTokens: 1_000_000}); cost != 3 {
		t.Errorf("a configured price replaces the default: $%v, want $3", cost)
	}
}
