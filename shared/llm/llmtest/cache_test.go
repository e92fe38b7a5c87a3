package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestCachedTokensStartAt1024InStepsOf128(t *testing.T) {
	for shared, want := range map[int]int{0: 0, 1023: 0, 1024: 1024, 1151: 1024, 1152: 1152, 1279: 1152, 5000: 4992} {
		if got := CachedTokens(shared); got != want {
			t.Errorf("CachedTokens(%d) = %d, want %d", shared, got, want)
		}
	}
}

func TestEncodingForModel(t *testing.T) {
	for model, want := range map[string]string{"gpt-4.1": "o200k_base", "gpt-4.1-mini": "o200k_base", "gpt-4o": "o200k_base",
		"gpt-4": "cl100k_base", "gpt-4-turbo": "cl100k_base", "gpt-3.5-turbo": "cl100k_base"} {
		if got := EncodingForModel(model); got != want {
			t.Errorf("EncodingForModel(%q) = %q, want %q", model, got, want)
		}
	}
}

// cacheProbe sends requests to the fake and reads the cached tokens it reports.
type cacheProbe struct {
	t   *testing.T
	srv *Server
	mu  sync.Mutex
	now time.Time
}

func newCacheProbe(t *testing.T) *cacheProbe {
	p := &cacheProbe{t: t, srv: NewServer(t), now: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}
	p.srv.SetClock(func() time.Time {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.now
	})
	return p
}

func (p *cacheProbe) wait(d time.Duration) {
	p.mu.Lock()
	p.now = p.now.Add(d)
	p.mu.Unlock()
}

// longText is about n tokens of distinct words.
func longText(seed string, n int) string {
	var b strings.Builder
	for i := range n / 2 {
		fmt.Fprintf(&b, "%s%d ", seed, i)
	}
	return b.String()
}

type cacheRequest struct {
	protocol          Protocol
	key, retention    string
	auth              string
	tool, system      string
	history, question string
}

func (r cacheRequest) body() string {
	body := map[string]any{"model": "gpt-4.1-mini", "stream": true}
	messages := []map[string]any{{"role": "user", "content": r.history}, {"role": "assistant", "content": "ok"}, {"role": "user", "content": r.question}}
	tool := map[string]any{"type": "function", "name": "capture_concepts", "description": r.tool, "parameters": map[string]any{"type": "object"}}
	if r.protocol == ProtocolChat {
		body["messages"] = append([]map[string]any{{"role": "system", "content": r.system}}, messages...)
		body["stream_options"] = map[string]any{"include_usage": true}
		tool = map[string]any{"type": "function", "function": map[string]any{"name": "capture_concepts", "description": r.tool, "parameters": map[string]any{"type": "object"}}}
	} else {
		body["instructions"], body["input"] = r.system, messages
	}
	body["tools"] = []any{tool}
	if r.key != "" {
		body["prompt_cache_key"] = r.key
	}
	if r.retention != "" {
		body["prompt_cache_retention"] = r.retention
	}
	raw, _ := json.Marshal(body)
	return string(raw)
}

var cachedField = regexp.MustCompile(`"(input|prompt)_tokens":(\d+),.*?"cached_tokens":(\d+)`)

// send posts r and returns the input and cached tokens the usage reports.
func (p *cacheProbe) send(r cacheRequest) (input, cached int) {
	p.t.Helper()
	path := "responses"
	if r.protocol == ProtocolChat {
		path = "chat/completions"
	}
	req, _ := http.NewRequest(http.MethodPost, p.srv.BaseURL()+path, strings.NewReader(r.body()))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+orDefault(r.auth, "key-a"))
	resp, err := p.srv.Client().Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	m := cachedField.FindAllStringSubmatch(string(raw), -1)
	if len(m) == 0 {
		p.t.Fatalf("no usage in the stream:\n%s", raw)
	}
	input, _ = strconv.Atoi(m[len(m)-1][2])
	cached, _ = strconv.Atoi(m[len(m)-1][3])
	return input, cached
}

// The fake reports cached tokens for the longest prefix, in the model's own
// tokens, shared with a recent prompt of the same organization and
// prompt_cache_key, from 1,024 tokens in steps of 128.
func TestFakeServesTheLongestRecentPrefixFromCache(t *testing.T) {
	for _, protocol := range []Protocol{ProtocolResponses, ProtocolChat} {
		t.Run(string(protocol), func(t *testing.T) {
			p := newCacheProbe(t)
			base := cacheRequest{protocol: protocol, key: "k1", tool: "Capture concepts.", system: longText("rule", 1500),
				history: longText("earlier", 600), question: "What is VAT?"}
			input, cached := p.send(base)
			if cached != 0 || input < 2000 {
				t.Fatalf("first request: input %d cached %d, want nothing cached", input, cached)
			}
			next := base
			next.question = "And the reduced rate?"
			input2, cached := p.send(next)
			if cached < input2-150 || cached > input2 || (cached-minCachedTokens)%cachedTokensStep != 0 {
				t.Errorf("same prefix, new question: input %d cached %d", input2, cached)
			}
			for name, other := range map[string]cacheRequest{
				"other prompt_cache_key": with(next, func(r *cacheRequest) { r.key = "k2" }),
				"other organization":     with(next, func(r *cacheRequest) { r.auth = "key-b" }),
				"tools changed":          with(next, func(r *cacheRequest) { r.tool = "Capture the concepts." }),
				"instructions changed":   with(next, func(r *cacheRequest) { r.system = "Note. " + r.system }),
			} {
				if _, cached := p.send(other); cached != 0 {
					t.Errorf("%s: %d tokens cached, want 0", name, cached)
				}
			}
			// Only the shared part counts: a new history keeps the tools
			// and instructions cached.
			changed := with(next, func(r *cacheRequest) { r.history = longText("other", 600) })
			if _, cached := p.send(changed); cached == 0 || cached >= input2-500 {
				t.Errorf("history changed: %d cached of %d", cached, input2)
			}
			p.wait(6 * time.Minute)
			if _, cached := p.send(next); cached != 0 {
				t.Errorf("after 6 idle minutes %d tokens cached, want 0", cached)
			}
		})
	}
}

func TestShortPromptsAreNeverCachedAndExtendedRetentionOutlivesMinutes(t *testing.T) {
	p := newCacheProbe(t)
	short := cacheRequest{tool: "t", system: longText("rule", 600), history: "h", question: "q"}
	p.send(short)
	if _, cached := p.send(short); cached != 0 {
		t.Errorf("a prompt under 1,024 tokens: %d cached", cached)
	}
	long := cacheRequest{tool: "t", system: longText("rule", 1800), history: "h", question: "q", retention: "24h"}
	p.send(long)
	p.wait(3 * time.Hour)
	if _, cached := p.send(long); cached == 0 {
		t.Error("a 24h-retention prefix was forgotten after 3 hours")
	}
}

func with(r cacheRequest, change func(*cacheRequest)) cacheRequest {
	change(&r)
	return r
}
