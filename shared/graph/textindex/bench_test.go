package textindex_test

import (
	"context"
	"testing"
	"time"

	"regintel/shared/graph"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/graph/textindex"
)

const benchQuestion = "How much VAT is charged on a hotel stay and a restaurant meal for two, and what were the employer's charges last year?"

// BenchmarkMatch is the index's cost per question over the seeded graph;
// BenchmarkMentionCandidates, the alias path every turn already pays, is
// the baseline to compare it with.
func BenchmarkMatch(b *testing.B) {
	mem, err := graphmem.NewSeeded(time.Now())
	if err != nil {
		b.Fatal(err)
	}
	x := textindex.New()
	if err := x.Refresh(context.Background(), mem); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		x.Match(benchQuestion, []string{"IE"})
	}
}

func BenchmarkMentionCandidates(b *testing.B) {
	for range b.N {
		graph.MentionCandidates(benchQuestion)
	}
}
