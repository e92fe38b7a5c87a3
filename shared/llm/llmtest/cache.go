package llmtest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/tiktoken-go/tokenizer/codec"

	"regintel/shared/llm"
)

// The fake serves part of a prompt from cache as OpenAI documents prompt
// caching: only an exact prefix of an earlier prompt counts, as the model's
// own tokenizer counts it, with the prompt laid out in the order the
// provider processes it (tools, then instructions, then the messages).
// Nothing is cached under 1,024 tokens; above that, hits grow in steps of
// 128 tokens. A prefix stays cached for a few minutes after its last use
// (at most an hour), or up to 24 hours with prompt_cache_retention "24h".
// Caches are not shared between organizations, and prompt_cache_key routes
// requests to their own cache.
const (
	minCachedTokens  = 1024
	cachedTokensStep = 128
	// inMemoryIdle is the low end of the documented 5 to 10 minutes of
	// inactivity after which an in-memory prefix is cleared.
	inMemoryIdle     = 5 * time.Minute
	inMemoryLifetime = time.Hour
	extendedLifetime = 24 * time.Hour
	// maxCachedPrompts bounds what one scope remembers.
	maxCachedPrompts = 256
)

// CachedTokens is what the provider reports as cached for a prompt that
// shares its first shared tokens with one it saw recently.
func CachedTokens(shared int) int {
	if shared < minCachedTokens {
		return 0
	}
	return minCachedTokens + (shared-minCachedTokens)/cachedTokensStep*cachedTokensStep
}

// EncodingForModel names the vocabulary a model counts with: o200k_base for
// gpt-4o, gpt-4.1, gpt-5 and the o-series (and models the fake does not
// know), cl100k_base for gpt-4 and gpt-3.5.
func EncodingForModel(model string) string {
	model = strings.TrimPrefix(model, "ft:")
	if model == "gpt-4" || strings.HasPrefix(model, "gpt-4-") || strings.HasPrefix(model, "gpt-3.5") {
		return "cl100k_base"
	}
	return "o200k_base"
}

var (
	o200k  = sync.OnceValue(codec.NewO200kBase)
	cl100k = sync.OnceValue(codec.NewCl100kBase)
)

// promptTokens tokenizes a request in the order the provider processes it:
// each tool as sent, then the instructions, then each message with its role.
func promptTokens(model string, rawTools []json.RawMessage, system string, messages []llm.Message) []uint {
	c := o200k()
	if EncodingForModel(model) == "cl100k_base" {
		c = cl100k()
	}
	var tokens []uint
	add := func(text string) {
		ids, _, _ := c.Encode(text)
		tokens = append(tokens, ids...)
	}
	for _, tool := range rawTools {
		add("<|tool|>" + string(tool))
	}
	if system != "" {
		add("<|im_start|>system\n" + system + "<|im_end|>")
	}
	for _, m := range messages {
		var b strings.Builder
		b.WriteString("<|im_start|>" + string(m.Role) + "\n" + m.Content)
		for _, call := range m.ToolCalls {
			b.WriteString("\n" + call.ID + " " + call.Name + " " + string(call.ArgsJSON))
		}
		if m.ToolCallID != "" {
			b.WriteString("\n" + m.ToolCallID)
		}
		b.WriteString("<|im_end|>")
		add(b.String())
	}
	return tokens
}

// cachedPrompt is one prompt the fake processed.
type cachedPrompt struct {
	tokens   []uint
	created  time.Time
	lastUsed time.Time
	lifetime time.Duration
	idle     time.Duration
}

func (p *cachedPrompt) live(now time.Time) bool {
	return now.Sub(p.created) <= p.lifetime && now.Sub(p.lastUsed) <= p.idle
}

// promptCache remembers recent prompts by scope: organization, model and
// prompt_cache_key.
type promptCache struct {
	mu      sync.Mutex
	now     func() time.Time
	byScope map[string][]*cachedPrompt
}

func newPromptCache() *promptCache {
	return &promptCache{now: time.Now, byScope: map[string][]*cachedPrompt{}}
}

// cacheScope is whom a cached prompt can serve: the organization (the
// OpenAI-Organization header, else the API key it belongs to), the model
// and the prompt_cache_key.
func cacheScope(rec RecordedRequest) string {
	org := rec.Header.Get("OpenAI-Organization")
	if org == "" {
		sum := sha256.Sum256([]byte(rec.Header.Get("Authorization")))
		org = hex.EncodeToString(sum[:8])
	}
	return org + "\x00" + rec.Model + "\x00" + rec.PromptCacheKey
}

// serve returns how many of tokens were served from cache, then remembers
// the prompt.
func (c *promptCache) serve(scope, retention string, tokens []uint) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	longest := 0
	var kept []*cachedPrompt
	for _, p := range c.byScope[scope] {
		if !p.live(now) {
			continue
		}
		kept = append(kept, p)
		if n := sharedPrefix(p.tokens, tokens); n > longest {
			longest = n
		}
		if CachedTokens(sharedPrefix(p.tokens, tokens)) > 0 {
			p.lastUsed = now
		}
	}
	entry := &cachedPrompt{tokens: tokens, created: now, lastUsed: now, lifetime: inMemoryLifetime, idle: inMemoryIdle}
	if retention == "24h" {
		entry.lifetime, entry.idle = extendedLifetime, extendedLifetime
	}
	kept = append(kept, entry)
	if len(kept) > maxCachedPrompts {
		kept = kept[len(kept)-maxCachedPrompts:]
	}
	c.byScope[scope] = kept
	return CachedTokens(longest)
}

func sharedPrefix(a, b []uint) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
