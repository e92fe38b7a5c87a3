package prompt

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"
)

// Tokenizer counts tokens with the model's BPE vocabulary. The vocabularies
// are compiled into the tokenizer module, so nothing is downloaded at run
// time; only o200k_base and cl100k_base are linked, and a vocabulary is
// built on the first count, not at start-up. Safe for concurrent use.
type Tokenizer struct {
	encoding string
	codec    func() *codec.Codec
	// Most of a prompt repeats from one turn to the next (the sheet's
	// sections, earlier turns), so counts are memoised by text. BPE counting
	// was the largest cost before the first streamed byte.
	mu    sync.Mutex
	cache map[string]int
}

// maxCachedCounts bounds the memo; it is dropped whole when full, which is
// cheap and keeps a warm Lambda container's memory flat.
const maxCachedCounts = 4096

// TokenizerForModel picks the vocabulary of model: cl100k_base for gpt-4,
// gpt-3.5 and text-embedding-ada-002, o200k_base for current OpenAI models
// (gpt-4o, gpt-4.1, gpt-5, o-series) and for models it does not know
// (other providers' counts differ a little; the budget keeps a margin).
func TokenizerForModel(model string) *Tokenizer {
	if usesCl100k(model) {
		return &Tokenizer{encoding: "cl100k_base", codec: sync.OnceValue(codec.NewCl100kBase), cache: map[string]int{}}
	}
	return &Tokenizer{encoding: "o200k_base", codec: sync.OnceValue(codec.NewO200kBase), cache: map[string]int{}}
}

func usesCl100k(model string) bool {
	model = strings.TrimPrefix(model, "ft:")
	switch {
	case model == "gpt-4", model == "text-embedding-ada-002":
		return true
	case strings.HasPrefix(model, "gpt-4-"), strings.HasPrefix(model, "gpt-3.5"), strings.HasPrefix(model, "gpt-35-turbo"):
		return true
	case strings.HasPrefix(model, "davinci-002"), strings.HasPrefix(model, "babbage-002"):
		return true // fine-tuned base models (ft:davinci-002:...)
	}
	return false
}

// Encoding names the vocabulary ("o200k_base", "cl100k_base").
func (t *Tokenizer) Encoding() string { return t.encoding }

// Count returns the number of tokens in s.
func (t *Tokenizer) Count(s string) int {
	if s == "" {
		return 0
	}
	t.mu.Lock()
	n, ok := t.cache[s]
	t.mu.Unlock()
	if ok {
		return n
	}
	n, err := t.codec().Count(s)
	if err != nil {
		// Only strict mode errors; fall back to a conservative estimate.
		return len(s)/3 + 1
	}
	t.mu.Lock()
	if len(t.cache) >= maxCachedCounts {
		t.cache = map[string]int{}
	}
	t.cache[s] = n
	t.mu.Unlock()
	return n
}

// TruncationMarker ends a text cut to fit the budget.
func TruncationMarker(droppedTokens int) string {
	return fmt.Sprintf("\n[… truncated: %d more tokens not shown]", droppedTokens)
}

// Truncate returns s cut so that it and its marker fit in maxTokens, and
// whether it was cut. Text within the limit is returned unchanged.
func (t *Tokenizer) Truncate(s string, maxTokens int) (string, bool) {
	total := t.Count(s)
	if total <= maxTokens {
		return s, false
	}
	_, tokens, err := t.codec().Encode(s)
	if err != nil {
		return "", true
	}
	// The marker's own length depends on the number in it; reserve for the
	// widest one.
	keep := maxTokens - t.Count(TruncationMarker(total))
	if keep < 0 {
		keep = 0
	}
	for {
		// Byte-level tokens can split a character; drop the broken tail.
		head := strings.ToValidUTF8(strings.Join(tokens[:keep], ""), "")
		out := head + TruncationMarker(total-keep)
		if t.Count(out) <= maxTokens || keep == 0 {
			return out, true
		}
		keep--
	}
}
