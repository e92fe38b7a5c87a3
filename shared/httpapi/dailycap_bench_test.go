package httpapi_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"regintel/shared/chat"
	"regintel/shared/llm/llmtest"
)

// BenchmarkDailyCapOverhead measures whole turns of one tenant on
// Postgres, 16 at a time on 16 conversations, with a daily cap that is
// never reached and, interleaved in the same run, without one: the cap's
// charge and settlement are two more statements per turn, and every turn
// of the tenant updates the same ledger row. It reports the p50 of both
// and their ratio.
//
//	go test -run '^$' -bench DailyCapOverhead ./shared/httpapi
func BenchmarkDailyCapOverhead(b *testing.B) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	const concurrent = 16
	capped := newEnv(b, envOptions{postgres: true, engine: chat.Config{DailyTokenLimit: 1 << 40}})
	uncapped := newEnv(b, envOptions{postgres: true})
	var convs [2][]string
	for i, e := range []*env{capped, uncapped} {
		e.llm.SetDefault(llmtest.TextScript("VAT is 23%."))
		for range concurrent {
			convs[i] = append(convs[i], e.chat(map[string]any{"message": "warm up"}, nil).Header.Get("X-Conversation-Id"))
		}
	}
	var with, without []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		with = append(with, concurrentTurns(b, capped, convs[0]))
		without = append(without, concurrentTurns(b, uncapped, convs[1]))
	}
	b.StopTimer()
	p50 := func(d []time.Duration) time.Duration {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2]
	}
	b.ReportMetric(float64(p50(with).Microseconds())/1000, "ms-capped-p50")
	b.ReportMetric(float64(p50(without).Microseconds())/1000, "ms-uncapped-p50")
	b.ReportMetric(float64(p50(with))/float64(p50(without)), "ratio")
}

// concurrentTurns runs one turn on each conversation at once and returns
// how long the slowest took.
func concurrentTurns(b *testing.B, e *env, convs []string) time.Duration {
	start := time.Now()
	var wg sync.WaitGroup
	for _, id := range convs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"conversationId":%q,"message":"What is the VAT rate?"}`, id)
			resp, err := http.Post(e.server.URL+"/chat", "application/json", strings.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("turn: %d", resp.StatusCode)
			}
		}()
	}
	wg.Wait()
	return time.Since(start)
}
