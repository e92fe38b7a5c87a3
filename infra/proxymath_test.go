package main

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// defaultPoolSize is shared/pgpool's DefaultMaxConns, read from its source
// (the infra module does not import the application's).
func defaultPoolSize(t *testing.T) int {
	src, err := os.ReadFile("../shared/pgpool/postgres.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`const DefaultMaxConns = (\d+)`).FindSubmatch(src)
	if m == nil {
		t.Fatal("shared/pgpool/postgres.go declares no DefaultMaxConns")
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// peakDBConnections is what prod's functions can hold at once without a
// proxy: every concurrent environment of a Postgres function keeps its own
// pool. Chat is capped by its reserved concurrency, the SQS workers by
// their maximum concurrency, and the sweep and migrate run one at a time.
func peakDBConnections(t *testing.T, s *synthesized, pool int) (environments, connections int) {
	chat, ok := s.props("ChatFunction")["ReservedConcurrentExecutions"].(float64)
	if !ok {
		t.Fatal("prod chat has no reserved concurrency: its connections are unbounded")
	}
	environments = int(chat)
	for _, m := range s.resources("AWS::Lambda::EventSourceMapping") {
		scaling, _ := m["Properties"].(map[string]any)["ScalingConfig"].(map[string]any)
		n, ok := scaling["MaximumConcurrency"].(float64)
		if !ok {
			t.Fatal("an SQS event source has no maximum concurrency")
		}
		environments += int(n)
	}
	environments += 2 // the sweep and migrate
	return environments, environments * pool
}

// TestProxyDecisionMatchesTheTemplates: the README's numbers on whether
// RDS Proxy pays for itself are prod's: peak connections without it, the
// writer's max_connections at its maximum ACU, and what the proxy costs.
func TestProxyDecisionMatchesTheTemplates(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	p := prod(t)
	pool := defaultPoolSize(t)
	environments, peak := peakDBConnections(t, p, pool)
	maxACU := 0.0
	for _, c := range p.resources("AWS::RDS::DBCluster") {
		maxACU = c["Properties"].(map[string]any)["ServerlessV2ScalingConfiguration"].(map[string]any)["MaxCapacity"].(float64)
	}
	limit := int(auroraMaxConnections(maxACU)) // the stack's own formula (monitoring.go), as its alarm uses
	proxy := dollars(unitPrices.ProxyMinACU * unitPrices.ProxyACUHour * hoursPerMonth)
	m := regexp.MustCompile(`<!-- proxy math -->[^\n]*\n.*?(\d+) concurrent environments × a pool of (\d+) = \*\*(\d+) connections\*\*, against\s+\*\*(\d+)\*\* \(max_connections at (\d+) ACU\); the proxy costs\s+\*\*(\$[\d.]+)\*\*`).FindSubmatch(readme)
	if m == nil {
		t.Fatal("infra/README.md has no proxy decision with its numbers")
	}
	want := []string{strconv.Itoa(environments), strconv.Itoa(pool), strconv.Itoa(peak), strconv.Itoa(limit), strconv.Itoa(int(maxACU)), proxy}
	for k, w := range want {
		if got := string(m[k+1]); got != w {
			t.Errorf("README's proxy decision: number %d is %s, the templates give %s (all: %v)", k+1, got, w, want)
		}
	}
	if peak*10 > limit*8 {
		t.Errorf("peak %d is above 80%% of max_connections %d: the README's verdict (drop the proxy) no longer holds", peak, limit)
	}
}
