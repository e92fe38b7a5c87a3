package prompt

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"
)

// Tokenizer counts tokens with the cl100k_base BPE vocabulary for every
// model. The vocabulary is compiled into the tokenizer module, so nothing
// is downloaded at run time; it is built on the first count, not at
// start-up. Only this one vocabulary is linked: each is a table of several
// megabytes in the binary. Safe for concurrent use.
//
// Models with the newer o200k_base vocabulary (gpt-4o, gpt-4.1, gpt-5, the
// o-series) and models it does not know are counted with cl100k_base plus
// a margin. cl100k_base counts as many tokens as o200k_base on English
// prose and a fifth to a third more in Irish, German and French, but up to
// a tenth fewer on compact JSON such as the tool schemas; the margin keeps
// the count at or above the model's own, so a prompt fitted to the budget
// never overruns it (tokens_test.go measures both vocabularies on
// representative text).
type Tokenizer struct {
	// marginPercent is added to every count, rounded up.
	marginPercent int
	// Most of a prompt repeats from one turn to the next (the sheet's
	// sections, earlier turns), so counts are memoised by text. BPE counting
	// was the largest cost before the first streamed byte.
	mu    sync.Mutex
	cache map[string]int
}

// O200kMarginPercent is the margin for models whose own vocabulary is
// o200k_base. It covers the largest shortfall measured, about 10.5% on
// compact JSON schemas, with a little to spare. On English prose, where
// both vocabularies count alike, it is budget given up for that safety.
const O200kMarginPercent = 12

// encoding is the one vocabulary linked.
const encoding = "cl100k_base"

var cl100k = sync.OnceValue(codec.NewCl100kBase)

// maxCachedCounts bounds the memo; it is dropped whole when full, which is
// cheap and keeps a warm Lambda container's memory flat.
const maxCachedCounts = 4096

// TokenizerForModel returns the tokenizer for model: cl100k_base as it is
// for gpt-4, gpt-3.5 and text-embedding-ada-002, whose vocabulary it is;
// cl100k_base with O200kMarginPercent for every other model (other
// providers' counts differ a little too; the budget keeps a margin).
func TokenizerForModel(model string) *Tokenizer {
	t := &Tokenizer{cache: map[string]int{}}
	if !usesCl100k(model) {
		t.marginPercent = O200kMarginPercent
	}
	return t
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

// Encoding names the vocabulary the counts come from: "cl100k_base", for
// every model.
func (t *Tokenizer) Encoding() string { return encoding }

// withMargin is n tokens of cl100k_base plus the margin, rounded up.
func (t *Tokenizer) withMargin(n int) int {
	return n + (n*t.marginPercent+99)/100
}

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
	n, err := cl100k().Count(s)
	if err != nil {
		// Only strict mode errors; fall back to a conservative estimate.
		return len(s)/3 + 1
	}
	n = t.withMargin(n)
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
	_, tokens, err := cl100k().Encode(s)
	if err != nil {
		return "", true
	}
	// The marker's own length depends on the number in it; reserve for the
	// widest one. keep counts the vocabulary's tokens, without the margin.
	keep := min(len(tokens), (maxTokens-t.Count(TruncationMarker(total)))*100/(100+t.marginPercent))
	if keep < 0 {
		keep = 0
	}
	for {
		// Byte-level tokens can split a character; drop the broken tail.
		head := strings.ToValidUTF8(strings.Join(tokens[:keep], ""), "")
		out := head + TruncationMarker(len(tokens)-keep)
		if t.Count(out) <= maxTokens || keep == 0 {
			return out, true
		}
		keep--
	}
}
