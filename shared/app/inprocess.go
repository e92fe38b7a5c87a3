package app

import (
	"log/slog"
	"time"

	"regintel/shared/config"
	"regintel/shared/graph"
	"regintel/shared/graph/write"
	"regintel/shared/queue"
	"regintel/shared/queue/inprocess"
	"regintel/shared/resolver"
)

func timeNow() time.Time { return time.Now() }

// inProcessConceptQueue runs the concept resolver in this process, through
// the same guarded write service and enrichment gate as the SQS resolver.
func inProcessConceptQueue(cfg config.Config, graphStore graph.ConceptStore, enrichment queue.Publisher, log *slog.Logger) (queue.Publisher, func()) {
	writes := write.NewService(graphStore, write.WithLogger(log))
	h := resolver.New(writes, enrichment, resolver.WithFreshness(cfg.Freshness), resolver.WithLogger(log))
	pub := inprocess.New("concepts", h.HandleEnvelope, log)
	return pub, pub.Close
}
