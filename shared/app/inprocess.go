package app

import (
	"context"
	"log/slog"

	"regintel/shared/config"
	"regintel/shared/graph"
	"regintel/shared/queue"
	"regintel/shared/queue/inprocess"
)

// inProcessConceptQueue runs the concept resolver in this process, through
// the same guarded write service and enrichment gate as the SQS resolver.
func inProcessConceptQueue(ctx context.Context, cfg config.Config, graphStore graph.ConceptStore, enrichment queue.Publisher, log *slog.Logger) (queue.Publisher, func(), error) {
	h, err := NewResolver(ctx, cfg, graphStore, enrichment, log)
	if err != nil {
		return nil, nil, err
	}
	pub := inprocess.New("concepts", h.HandleEnvelope, log)
	return pub, pub.Close, nil
}
