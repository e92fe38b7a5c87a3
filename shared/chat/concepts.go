package chat

import (
	"context"

	"regintel/shared/concept"
	"regintel/shared/conversation"
)

// resolveConcepts checks each captured concept with the write guard (pure
// code), then resolves the clean ones against the graph in one read: an
// existing node of the same (domain, kind, jurisdiction), else one whose
// label or alias matches in that jurisdiction, else the canonical id. A
// rejected concept leaves no trace: no id, no metadata, no queue message,
// and only a count in the logs. It returns the concepts to queue and the
// resolved references, one per node.
func (t *Turn) resolveConcepts(ctx context.Context, captured []concept.Concept) ([]concept.Concept, []conversation.ConceptRef) {
	clean := make([]concept.Concept, 0, len(captured))
	rejected := 0
	for _, c := range captured {
		if err := t.e.guard.CheckConcept(c); err != nil {
			rejected++
			continue
		}
		clean = append(clean, c)
	}
	t.counts.rejected += rejected
	if rejected > 0 {
		t.log.Warn("captured concepts rejected by the write guard", "rejected", rejected)
	}
	if len(clean) == 0 {
		return nil, []conversation.ConceptRef{}
	}
	ids := t.resolveIDs(ctx, clean)
	refs := make([]conversation.ConceptRef, 0, len(clean))
	seen := map[string]bool{}
	var queued []concept.Concept
	for i, c := range clean {
		if seen[ids[i]] {
			continue
		}
		seen[ids[i]] = true
		refs = append(refs, conversation.ConceptRef{ID: ids[i], Label: c.PrefLabel})
		queued = append(queued, c)
	}
	return queued, refs
}

// resolveIDs resolves concepts read-only; when the graph cannot be read,
// each keeps its canonical id (the resolver function resolves again
// before it writes).
func (t *Turn) resolveIDs(ctx context.Context, concepts []concept.Concept) []string {
	gctx, cancel := context.WithTimeout(ctx, t.e.cfg.GraphTimeout)
	defer cancel()
	ids, err := t.e.graph.ResolveConcepts(gctx, concepts)
	if err == nil && len(ids) == len(concepts) {
		return ids
	}
	t.log.Warn("concept resolution failed; using canonical ids", "err", err)
	ids = make([]string, len(concepts))
	for i, c := range concepts {
		ids[i] = c.ID
	}
	return ids
}
