package resolver

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"regintel/shared/concept"
	"regintel/shared/queue"
	"regintel/shared/quota"
)

// admitNewNodes leaves out of each item the captures that would make a new
// shared node beyond its tenant's daily quota. Only a capture of a
// vocabulary kind that resolves to no node the graph holds makes one; a
// node several items of the batch would make is counted once. A failed
// look-up or count fails the items, so they are retried.
func (h *Handler) admitNewNodes(ctx context.Context, items []*item, st *batchStats) {
	if h.quota == nil {
		return
	}
	target, exists, err := h.newNodeTargets(ctx, items)
	if err != nil {
		h.failAll(ctx, items, err)
		return
	}
	admitted := map[string]bool{}
	now := h.now()
	for _, it := range items {
		if it.err != nil {
			continue
		}
		kept := it.concepts[:0:0]
		for _, raw := range it.concepts {
			id, listedKind := target[concept.Normalize(raw).ID]
			if !listedKind || exists[id] || admitted[id] {
				kept = append(kept, raw)
				continue
			}
			ok, err := h.quota.Take(ctx, it.tenant, quota.NewNodes, now)
			if err != nil {
				h.failAll(ctx, items, fmt.Errorf("count a new node: %w", err))
				return
			}
			if !ok {
				st.nodesOverQuota++
				continue
			}
			admitted[id] = true
			kept = append(kept, raw)
		}
		it.concepts = kept
	}
	if st.nodesOverQuota > 0 {
		h.log.WarnContext(ctx, "new shared nodes over the tenant's daily quota left out", "event", "resolver_node_quota_exceeded", "left_out", st.nodesOverQuota)
	}
}

// newNodeTargets resolves, read-only, the items' captures of vocabulary
// kinds (the only ones a capture writes): target maps each canonical id to
// the node it resolves to, exists says which of those the graph holds.
func (h *Handler) newNodeTargets(ctx context.Context, items []*item) (target map[string]string, exists map[string]bool, err error) {
	var listed []concept.Concept
	for _, it := range items {
		if it.err != nil {
			continue
		}
		for _, raw := range it.concepts {
			if c := concept.Normalize(raw); concept.KnownKind(c.Kind) {
				listed = append(listed, c)
			}
		}
	}
	if len(listed) == 0 {
		return nil, nil, nil
	}
	targets, err := h.writes.Reads().ResolveConcepts(ctx, listed)
	if err != nil || len(targets) != len(listed) {
		return nil, nil, fmt.Errorf("resolve %d concepts for the quota: %w", len(listed), err)
	}
	target = make(map[string]string, len(listed))
	for i, c := range listed {
		target[c.ID] = targets[i]
	}
	nodes, err := h.writes.Reads().GetNodesByIDs(ctx, slices.Compact(slices.Sorted(maps.Values(target))))
	if err != nil {
		return nil, nil, fmt.Errorf("look up %d nodes for the quota: %w", len(target), err)
	}
	exists = map[string]bool{}
	for _, n := range nodes {
		exists[n.ID] = true
	}
	return target, exists, nil
}

// failAll fails every item not failed yet.
func (h *Handler) failAll(ctx context.Context, items []*item, err error) {
	h.log.ErrorContext(ctx, "new-node quota check failed; records reported failed for retry", "event", "resolver_quota_failed", "err", err.Error())
	for _, it := range items {
		if it.err == nil {
			it.err = err
		}
	}
}

// heldJob returns the job for a held capture (a kind outside the
// vocabulary, no node): enrichment makes its node only if an official page
// names it. Such a concept has no node to mark, so only the tenant's daily
// quota bounds how often it is asked for.
func (h *Handler) heldJob(ctx context.Context, tenant string, c concept.Concept, now time.Time, st *batchStats) (*queue.Envelope, error) {
	if ok, err := h.takeJob(ctx, tenant, now, st); !ok || err != nil {
		return nil, err
	}
	job := queue.EnrichmentRequested{ConceptID: c.ID, Domain: c.Domain, Kind: c.Kind, Jurisdiction: c.Jurisdiction, SourceURLs: c.SourceURLs, Held: true}
	env, err := queue.NewEnvelope(queue.TypeEnrichmentRequested, job)
	if err != nil {
		return nil, err
	}
	st.heldRequested++
	return &env, nil
}

// takeJob counts one enrichment job against the tenant's daily quota.
func (h *Handler) takeJob(ctx context.Context, tenant string, now time.Time, st *batchStats) (bool, error) {
	ok, err := h.quota.Take(ctx, tenant, quota.EnrichmentJobs, now)
	if err != nil {
		return false, fmt.Errorf("count an enrichment job: %w", err)
	}
	if !ok {
		st.jobsOverQuota++
	}
	return ok, nil
}
