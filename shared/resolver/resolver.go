// Package resolver is the resolve-concepts function's code. It consumes
// concepts.captured messages: it
// writes the concepts through the graph write service (and so through the
// ingress guard) as captures, which leave only a bare node in the shared
// graph (the captured text stays in the tenant's conversation), then queues an enrichment job for each concept the graph
// has no useful detail on yet, at most once per concept per freshness window.
//
// The same handler serves SQS batches (the resolve-concepts Lambda) and
// single envelopes (the in-process queue of local runs). Redelivery is
// harmless: concepts MERGE by id and the enrichment mark is a compare-and-set.
package resolver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"regintel/shared/concept"
	"regintel/shared/graph"
	"regintel/shared/graph/write"
	"regintel/shared/metrics"
	"regintel/shared/queue"
	"regintel/shared/quota"
	"regintel/shared/tracing"
)

// DefaultFreshness is how long a verification (or an enrichment request)
// counts as recent.
const DefaultFreshness = 30 * 24 * time.Hour

// Handler resolves captured concepts. It is safe for concurrent use.
type Handler struct {
	writes    *write.Service
	enrich    queue.Publisher
	log       *slog.Logger
	now       func() time.Time
	freshness time.Duration
	metrics   *metrics.Emitter
	// quota bounds each tenant's new shared nodes and enrichment jobs per
	// UTC day; nil bounds nothing.
	quota *quota.Quota
}

// Option configures a Handler.
type Option func(*Handler)

// WithFreshness sets the freshness window (default DefaultFreshness).
func WithFreshness(d time.Duration) Option {
	return func(h *Handler) {
		if d > 0 {
			h.freshness = d
		}
	}
}

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(h *Handler) { h.log = l } }

// WithMetrics emits one EMF record per batch (nil: none).
func WithMetrics(m *metrics.Emitter) Option { return func(h *Handler) { h.metrics = m } }

// WithQuota bounds each tenant's new shared nodes and enrichment jobs per
// UTC day (nil: no bound).
func WithQuota(q *quota.Quota) Option { return func(h *Handler) { h.quota = q } }

// WithClock sets the time source (default time.Now).
func WithClock(now func() time.Time) Option { return func(h *Handler) { h.now = now } }

// New returns a handler writing through writes and publishing enrichment
// jobs to enrich (nil disables enrichment requests).
func New(writes *write.Service, enrich queue.Publisher, opts ...Option) *Handler {
	h := &Handler{writes: writes, enrich: enrich, log: slog.Default(), now: time.Now, freshness: DefaultFreshness}
	for _, o := range opts {
		o(h)
	}
	return h
}

// item is one message being resolved, with where it came from.
type item struct {
	ref      string // SQS message id or envelope id, for logs and failures
	tenant   string // whose turn captured the concepts, for the quota
	concepts []concept.Concept
	err      error // set when the item failed
}

// HandleSQS resolves a batch of SQS records. Records that failed (transient
// errors, or messages that can never be decoded) are returned in
// BatchItemFailures, so SQS retries them and, after maxReceiveCount, moves
// them to the dead-letter queue. Concepts rejected by the guard do not fail
// their record: they can never succeed. The error is always nil; a failure
// of the whole batch shows as every record in BatchItemFailures.
func (h *Handler) HandleSQS(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	ctx, span := batchSpan(ctx, ev.Records)
	defer span.End()
	items := make([]*item, 0, len(ev.Records))
	for _, rec := range ev.Records {
		it := &item{ref: rec.MessageId}
		items = append(items, it)
		env, err := queue.Decode([]byte(rec.Body))
		if err == nil {
			it.tenant, it.concepts, err = h.decode(env)
		}
		if err != nil {
			// Logged with the id only: the body may hold anything.
			if !errors.Is(err, queue.ErrInvalidPayload) {
				err = fmt.Errorf("%w: %v", queue.ErrInvalidPayload, err)
			}
			it.err = err
			h.log.ErrorContext(ctx, "undecodable concepts message; reporting it failed so it reaches the dead-letter queue",
				"event", "resolver_invalid_message", "message_id", rec.MessageId, "receive_count", rec.Attributes["ApproximateReceiveCount"], "err", err.Error())
		}
	}
	st := h.resolve(ctx, items)
	var resp events.SQSEventResponse
	for _, it := range items {
		if it.err != nil {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: it.ref})
		}
	}
	h.log.InfoContext(ctx, "resolved concepts batch", "event", "resolver_batch", "records", len(ev.Records), "failed", len(resp.BatchItemFailures))
	h.emit(items, st)
	return resp, nil
}

// batchSpan is the span of a batch: in the trace of its first record's
// turn, linked to every record's, so each turn's trace reaches its concepts'
// graph writes.
func batchSpan(ctx context.Context, records []events.SQSMessage) (context.Context, trace.Span) {
	if !tracing.On() {
		return ctx, trace.SpanFromContext(ctx)
	}
	parent := ctx
	var links []trace.Link
	for i, rec := range records {
		recCtx := tracing.FromSQSRecord(ctx, rec)
		if i == 0 {
			parent = recCtx
		}
		if sc := trace.SpanContextFromContext(recCtx); sc.IsValid() {
			links = append(links, trace.Link{SpanContext: sc})
		}
	}
	return tracing.StartRoot(parent, "resolve concepts", trace.WithSpanKind(trace.SpanKindConsumer), trace.WithLinks(links...),
		trace.WithAttributes(attribute.String("messaging.system", "aws_sqs"), attribute.Int("messaging.batch.message_count", len(records))))
}

// HandleEnvelope resolves one envelope (the in-process queue). An invalid
// message returns an error wrapping queue.ErrInvalidPayload.
func (h *Handler) HandleEnvelope(ctx context.Context, env queue.Envelope) error {
	tenant, concepts, err := h.decode(env)
	if err != nil {
		return err
	}
	it := &item{ref: env.ID, tenant: tenant, concepts: concepts}
	h.emit([]*item{it}, h.resolve(ctx, []*item{it}))
	return it.err
}

func (h *Handler) decode(env queue.Envelope) (tenant string, concepts []concept.Concept, err error) {
	p, err := queue.DecodeConceptsCaptured(env)
	if err != nil {
		return "", nil, err
	}
	return p.TenantID, p.Concepts, nil
}

// resolve writes the concepts of all valid items in one write-service call
// (one transaction), falling back to one call per item when the combined
// write fails so a single item's problem cannot fail the whole batch; then
// decides enrichment per written concept.
func (h *Handler) resolve(ctx context.Context, items []*item) *batchStats {
	st := &batchStats{started: h.now()}
	for _, it := range items {
		if it.err == nil {
			st.concepts += len(it.concepts)
		}
	}
	h.admitNewNodes(ctx, items, st)
	var pending []*item
	var all []concept.Concept
	for _, it := range items {
		if it.err == nil && len(it.concepts) > 0 {
			pending = append(pending, it)
			all = append(all, it.concepts...)
		}
	}
	if len(pending) == 0 {
		return st
	}
	written := map[string]string{} // canonical id -> id of the node written
	held := map[string]bool{}      // canonical ids of captures that made no node
	res, err := h.writes.ResolveConcepts(ctx, all, graph.ProvenanceCapture)
	if err == nil {
		maps.Copy(written, res.Resolved)
		addHeld(held, res.Held)
		st.rejected = len(res.Rejected)
	} else if len(pending) == 1 {
		pending[0].err = err
		h.log.ErrorContext(ctx, "concept write failed", "event", "resolver_write_failed", "message_id", pending[0].ref, "err", err.Error())
	} else {
		h.log.WarnContext(ctx, "batched concept write failed; retrying per message", "records", len(pending), "err", err.Error())
		for _, it := range pending {
			r, err := h.writes.ResolveConcepts(ctx, it.concepts, graph.ProvenanceCapture)
			if err != nil {
				it.err = err
				h.log.ErrorContext(ctx, "concept write failed", "event", "resolver_write_failed", "message_id", it.ref, "err", err.Error())
				continue
			}
			maps.Copy(written, r.Resolved)
			addHeld(held, r.Held)
			st.rejected += len(r.Rejected)
		}
	}
	st.written = len(written)
	st.held = len(held)
	h.requestEnrichment(ctx, pending, written, held, st)
	return st
}

func addHeld(held map[string]bool, cs []concept.Concept) {
	for _, c := range cs {
		held[c.ID] = true
	}
}

// requestEnrichment checks each written node once and publishes one
// enrichment.requested per node lacking useful detail, in one Publish call.
// A captured concept that resolved to an existing node is checked as that
// node. A failed detail check fails the items holding that concept (a retry
// re-runs it); a failed publish clears the marks it set and fails the items
// too, so their redelivery queues the jobs again.
func (h *Handler) requestEnrichment(ctx context.Context, items []*item, written map[string]string, held map[string]bool, st *batchStats) {
	if h.enrich == nil {
		return
	}
	now := h.now().UTC()
	since := now.Add(-h.freshness)
	checked := map[string]bool{}
	failedIDs := map[string]error{}
	var envs []queue.Envelope
	var enqueued, heldQueued []string
	for _, it := range items {
		if it.err != nil {
			continue
		}
		for _, raw := range it.concepts {
			c := concept.Normalize(raw)
			id := written[c.ID]
			if id == "" && held[c.ID] {
				id = c.ID
			}
			if id == "" || checked[id] {
				continue
			}
			checked[id] = true
			var env *queue.Envelope
			var err error
			if held[c.ID] {
				env, err = h.heldJob(ctx, it.tenant, c, now, st)
			} else {
				env, err = h.enrichmentJob(ctx, it.tenant, c, id, now, since, st)
			}
			if err != nil {
				failedIDs[id] = err
			} else if env != nil {
				envs = append(envs, *env)
				if held[c.ID] {
					heldQueued = append(heldQueued, id)
				} else {
					enqueued = append(enqueued, id)
				}
			}
		}
	}
	if st.jobsOverQuota > 0 {
		h.log.WarnContext(ctx, "enrichment jobs over the tenant's daily quota not queued", "event", "resolver_job_quota_exceeded", "left_out", st.jobsOverQuota)
	}
	if h.publish(ctx, envs, enqueued, heldQueued, now, failedIDs) {
		st.enrichmentRequested = len(envs)
	} else {
		st.publishFailures = 1
	}
	h.failItemsOf(ctx, items, written, failedIDs)
}

// failItemsOf fails each item holding a concept whose enrichment decision
// or publish failed, so its redelivery decides again.
func (h *Handler) failItemsOf(ctx context.Context, items []*item, written map[string]string, failedIDs map[string]error) {
	for _, it := range items {
		for _, c := range it.concepts {
			n := concept.Normalize(c)
			id := written[n.ID]
			if id == "" {
				id = n.ID
			}
			if err, ok := failedIDs[id]; ok && it.err == nil {
				it.err = err
				h.log.ErrorContext(ctx, "enrichment decision failed", "event", "resolver_detail_check_failed", "message_id", it.ref, "err", err.Error())
			}
		}
	}
}

// enrichmentJob returns the job for node id (the captured concept c, or the
// node it resolved to) when the node lacks useful detail and no job was
// requested within the window; nil when none is due.
func (h *Handler) enrichmentJob(ctx context.Context, tenant string, c concept.Concept, id string, now, since time.Time, st *batchStats) (*queue.Envelope, error) {
	useful, err := h.writes.Reads().HasUsefulDetail(ctx, id, since)
	if err != nil {
		return nil, fmt.Errorf("check detail of %s: %w", concept.LogID(id), err)
	}
	if useful {
		return nil, nil
	}
	marked, err := h.writes.MarkEnrichmentRequested(ctx, id, now, since)
	if err != nil {
		return nil, fmt.Errorf("mark enrichment of %s: %w", concept.LogID(id), err)
	}
	if !marked {
		return nil, nil // already requested within the window
	}
	if ok, err := h.takeJob(ctx, tenant, now, st); !ok || err != nil {
		// Not queued: the mark goes, so a later capture may ask again.
		if cerr := h.writes.ClearEnrichmentRequested(ctx, id, now); cerr != nil {
			h.log.ErrorContext(ctx, "enrichment mark not cleared; the concept waits for the freshness window",
				"event", "enrichment_unmark_failed", "concept_id", concept.LogID(id), "err", cerr.Error())
		}
		return nil, err
	}
	job := queue.EnrichmentRequested{ConceptID: id, Domain: c.Domain, Kind: c.Kind, Jurisdiction: c.Jurisdiction, SourceURLs: c.SourceURLs}
	if parts := strings.Split(id, ":"); id != c.ID && len(parts) == 3 {
		job.Domain, job.Jurisdiction, job.Kind = parts[0], parts[1], parts[2]
	}
	env, err := queue.NewEnvelope(queue.TypeEnrichmentRequested, job)
	if err != nil {
		return nil, err
	}
	return &env, nil
}

// publish sends the jobs in one call. On failure it undoes the marks so the
// redelivered records queue the jobs again: nothing accepted is lost to a
// queue outage.
// Held concepts' jobs (heldIDs) have no mark; their items fail too.
// It reports whether the jobs were queued (true when there were none).
func (h *Handler) publish(ctx context.Context, envs []queue.Envelope, enqueued, heldIDs []string, markedAt time.Time, failedIDs map[string]error) bool {
	if len(envs) == 0 {
		return true
	}
	err := h.enrich.Publish(ctx, envs...)
	if err == nil {
		h.log.InfoContext(ctx, "enrichment requested", "event", "enrichment_requested", "concept_ids", logIDs(enqueued), "held", len(heldIDs))
		return true
	}
	for _, id := range heldIDs {
		failedIDs[id] = fmt.Errorf("queue enrichment of a held concept: %w", err)
	}
	for _, id := range enqueued {
		if cerr := h.writes.ClearEnrichmentRequested(ctx, id, markedAt); cerr != nil {
			h.log.ErrorContext(ctx, "enrichment mark not cleared; the concept waits for the freshness window",
				"event", "enrichment_unmark_failed", "concept_id", concept.LogID(id), "err", cerr.Error())
		}
		failedIDs[id] = fmt.Errorf("queue enrichment of %s: %w", concept.LogID(id), err)
	}
	h.log.ErrorContext(ctx, "enrichment enqueue failed; records reported failed for retry",
		"event", "enrichment_enqueue_failed", "concept_ids", logIDs(enqueued), "err", err.Error())
	return false
}

// IsInvalid reports whether err means the message can never be processed.
func IsInvalid(err error) bool { return errors.Is(err, queue.ErrInvalidPayload) }

// logIDs are ids as logs may carry them (concept.LogID).
func logIDs(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = concept.LogID(id)
	}
	return out
}
