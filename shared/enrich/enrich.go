// Package enrich is the enrichment job of the enrich function: for a concept the
// graph knows little about, it reads official sources and upserts the
// regulatory facts they state. One job: pick sources (shared/sources),
// fetch them safely, extract their text, skip the ones whose content hash
// was already processed, make ONE LLM call with the record_regulatory_facts
// tool, keep only facts whose quote is really in the page, and write the
// facts plus the concept's status through the guarded write service in one
// transaction.
//
// The same handler serves SQS batches (the enrich Lambda) and single
// envelopes (the in-process queue of local runs). Rerunning a job is
// harmless: node ids are deterministic and writes MERGE.
package enrich

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/errgroup"

	"regintel/shared/concept"
	"regintel/shared/extract"
	"regintel/shared/fetch"
	"regintel/shared/graph"
	"regintel/shared/graph/write"
	"regintel/shared/llm"
	"regintel/shared/metrics"
	"regintel/shared/queue"
	"regintel/shared/sources"
	"regintel/shared/tracing"
)

// Ingestion statuses stored on the concept (ingestion_status).
const (
	StatusEnriched  = "enriched"
	StatusNoSources = "no_sources"
	StatusFailed    = "failed"
)

// Document is one fetched page (final URL after redirects, content type,
// body, time).
type Document = fetch.Document

// Fetcher fetches one official URL safely (allowlist, SSRF checks, size and
// type limits); *fetch.Fetcher is the production one. FetcherFunc adapts a
// function.
type Fetcher interface {
	Fetch(ctx context.Context, rawURL string) (Document, error)
}

// FetcherFunc is a Fetcher.
type FetcherFunc func(ctx context.Context, rawURL string) (Document, error)

// Fetch calls f.
func (f FetcherFunc) Fetch(ctx context.Context, rawURL string) (Document, error) {
	return f(ctx, rawURL)
}

// Extracted is a document's readable text and the SHA-256 (lower hex) of it.
type Extracted struct {
	Text   string
	SHA256 string
}

// Extractor turns a document into readable text; Readable is the production
// one.
type Extractor interface {
	Extract(doc Document) (Extracted, error)
}

// Readable extracts with shared/extract (HTML without page chrome, PDF
// text, plain text), capped at maxChars runes (0: extract's default).
func Readable(maxChars int) Extractor {
	return ExtractorFunc(func(doc Document) (Extracted, error) {
		t, err := extract.Readable(doc.ContentType, doc.Body, extract.Options{MaxChars: maxChars})
		if err != nil {
			return Extracted{}, err
		}
		return Extracted{Text: t.Content, SHA256: t.SHA256}, nil
	})
}

// ExtractorFunc is an Extractor.
type ExtractorFunc func(doc Document) (Extracted, error)

// Extract calls f.
func (f ExtractorFunc) Extract(doc Document) (Extracted, error) { return f(doc) }

// SourceSelector picks the URLs a job may fetch (sources.Catalog).
type SourceSelector interface {
	Select(r sources.Request) []string
}

// Deps are the handler's collaborators.
type Deps struct {
	Writes    *write.Service
	Sources   SourceSelector
	Fetcher   Fetcher
	Extractor Extractor
	Provider  llm.Provider
	// ContainsQuote checks a fact's quote against its page's text; nil means
	// extract.ContainsQuote.
	ContainsQuote func(text, quote string) bool
	Log           *slog.Logger
	// Metrics receives one EMF record per job (nil: none).
	Metrics *metrics.Emitter
}

// Config tunes the handler; zero values mean the defaults.
type Config struct {
	Model string
	// Freshness: a concept with detail edges or verified within it is left
	// alone (default 30 days, as the resolver).
	Freshness time.Duration
	// MaxSourceChars bounds one document's text in the prompt (default
	// 20000); MaxPromptChars all of them together (default 60000).
	MaxSourceChars int
	MaxPromptChars int
	// FetchConcurrency bounds parallel fetches in one job (default 4);
	// BatchConcurrency parallel jobs in one SQS batch (default 2).
	FetchConcurrency int
	BatchConcurrency int
	// IgnoreExistingDetail re-reads the sources of a concept that already
	// has detail (scheduled re-verification); sources whose content hash was
	// already processed are still skipped.
	IgnoreExistingDetail bool
	// MaxStoredHashes bounds the content hashes kept on a concept (default 50).
	MaxStoredHashes int
	Now             func() time.Time
}

func (c Config) withDefaults() Config {
	if c.Freshness <= 0 {
		c.Freshness = 30 * 24 * time.Hour
	}
	if c.MaxSourceChars <= 0 {
		c.MaxSourceChars = 20000
	}
	if c.MaxPromptChars <= 0 {
		c.MaxPromptChars = 60000
	}
	if c.FetchConcurrency <= 0 {
		c.FetchConcurrency = 4
	}
	if c.BatchConcurrency <= 0 {
		c.BatchConcurrency = 2
	}
	if c.MaxStoredHashes <= 0 {
		c.MaxStoredHashes = 50
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Handler runs enrichment jobs. It is safe for concurrent use.
type Handler struct {
	d     Deps
	cfg   Config
	log   *slog.Logger
	stats statsRecorder
}

// New checks deps and returns a handler.
func New(d Deps, cfg Config) (*Handler, error) {
	if d.Writes == nil || d.Sources == nil || d.Fetcher == nil || d.Extractor == nil || d.Provider == nil {
		return nil, errors.New("enrich: writes, sources, fetcher, extractor and provider are all required")
	}
	if d.ContainsQuote == nil {
		d.ContainsQuote = extract.ContainsQuote
	}
	log := d.Log
	if log == nil {
		log = slog.Default()
	}
	return &Handler{d: d, cfg: cfg.withDefaults(), log: log}, nil
}

// Outcome says how a job ended.
type Outcome string

const (
	OutcomeFresh     Outcome = "fresh"     // already had detail: nothing done
	OutcomeEnriched  Outcome = "enriched"  // facts extracted and written
	OutcomeUnchanged Outcome = "unchanged" // every source already processed: only re-verified
	OutcomeNoSources Outcome = "no_sources"
	OutcomeFailed    Outcome = "failed"
	// OutcomeNotNamed: a held concept (queue.EnrichmentRequested.Held) that
	// no official page names: no node is made.
	OutcomeNotNamed Outcome = "not_named"
)

// Result describes one job.
type Result struct {
	ConceptID string
	Outcome   Outcome
	Sources   int // selected
	Fetched   int
	Changed   int // sources sent to the model
	Kept      int // facts written (before the guard)
	Dropped   int // facts whose evidence did not check out
	Rejected  int // items the guard refused
	Timings   Timings
}

// Errors that can never succeed on retry; they still fail the record, so it
// ends in the dead-letter queue rather than vanishing.
var ErrUnknownConcept = errors.New("enrichment job for a concept the graph does not hold")

// ErrNoExtraction means the model answered without calling the tool.
var ErrNoExtraction = errors.New("the model did not call " + ToolName)

// Stats returns what the handler did so far (job counts, time per phase).
func (h *Handler) Stats() Stats { return h.stats.snapshot() }

// HandleSQS runs one job per record, a few at a time. Failed records
// (transient errors, or messages that can never be decoded) are returned in
// BatchItemFailures so SQS retries them and, after maxReceiveCount, moves
// them to the dead-letter queue. The error is always nil.
func (h *Handler) HandleSQS(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	failed := make([]bool, len(ev.Records))
	var jobs errgroup.Group
	jobs.SetLimit(h.cfg.BatchConcurrency)
	for i, rec := range ev.Records {
		env, err := queue.Decode([]byte(rec.Body))
		var job queue.EnrichmentRequested
		if err == nil {
			job, err = queue.DecodeEnrichmentRequested(env)
		}
		if err != nil {
			// Logged with the id only: the body may hold anything.
			failed[i] = true
			h.log.ErrorContext(ctx, "undecodable enrichment message; reporting it failed so it reaches the dead-letter queue",
				"event", "enrich_invalid_message", "message_id", rec.MessageId, "receive_count", rec.Attributes["ApproximateReceiveCount"], "err", err)
			continue
		}
		jobs.Go(func() error {
			jobCtx, span := tracing.StartRoot(tracing.FromSQSRecord(ctx, rec), "enrich concept", trace.WithSpanKind(trace.SpanKindConsumer))
			_, err := h.Enrich(jobCtx, job)
			tracing.End(span, err)
			if err != nil {
				failed[i] = true
				h.log.ErrorContext(ctx, "enrichment job failed", "event", "enrich_job_failed", "message_id", rec.MessageId, "concept_id", concept.LogID(job.ConceptID),
					"receive_count", rec.Attributes["ApproximateReceiveCount"], "err", err)
			}
			return nil // a failed job is reported per record, not as the batch's error
		})
	}
	_ = jobs.Wait()
	var resp events.SQSEventResponse
	for i, f := range failed {
		if f {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: ev.Records[i].MessageId})
		}
	}
	h.log.InfoContext(ctx, "enrichment batch", "event", "enrich_batch", "records", len(ev.Records), "failed", len(resp.BatchItemFailures))
	return resp, nil
}

// HandleEnvelope runs one job (the in-process queue). An invalid message
// returns an error wrapping queue.ErrInvalidPayload.
func (h *Handler) HandleEnvelope(ctx context.Context, env queue.Envelope) error {
	job, err := queue.DecodeEnrichmentRequested(env)
	if err != nil {
		return err
	}
	_, err = h.Enrich(ctx, job)
	return err
}

// Enrich runs one job. An error means the job should be retried (or, for
// ErrUnknownConcept, dead-lettered); the concept's ingestion_status then
// says failed.
func (h *Handler) Enrich(ctx context.Context, job queue.EnrichmentRequested) (res Result, err error) {
	start := time.Now()
	res = Result{ConceptID: job.ConceptID, Timings: Timings{}}
	defer func() {
		if err != nil {
			res.Outcome = OutcomeFailed
		}
		h.stats.record(res, time.Since(start))
		h.emit(res, time.Since(start))
		h.log.InfoContext(ctx, "enrichment job", "event", "enrich_job", "concept_id", concept.LogID(res.ConceptID), "held", job.Held, "outcome", string(res.Outcome),
			"sources", res.Sources, "fetched", res.Fetched, "changed", res.Changed, "facts_kept", res.Kept, "facts_dropped", res.Dropped,
			"rejected", res.Rejected, "duration_ms", time.Since(start).Milliseconds())
	}()
	now := h.cfg.Now().UTC()
	if job.Held {
		return res, h.enrichHeld(ctx, &res, job, now)
	}
	conceptNode, fresh, err := h.readConcept(ctx, &res, job, now)
	if err != nil {
		return res, err
	}
	if fresh {
		res.Outcome = OutcomeFresh
		return res, nil
	}

	urls := h.selectSources(job)
	res.Sources = len(urls)
	if len(urls) == 0 {
		res.Outcome = OutcomeNoSources
		return res, h.writeStatus(ctx, &res, job, StatusNoSources, nil, time.Time{})
	}

	processed := stringSet(conceptNode.Properties[write.SourceContentHashesKey])
	changed, unchanged := h.readSources(ctx, &res, job, urls, processed)
	res.Changed = len(changed)
	if len(changed) == 0 {
		if unchanged == 0 {
			_ = h.writeStatus(ctx, &res, job, StatusFailed, nil, time.Time{})
			return res, fmt.Errorf("none of %d sources could be fetched and read", len(urls))
		}
		res.Outcome = OutcomeUnchanged
		return res, h.writeStatus(ctx, &res, job, StatusEnriched, nil, now)
	}

	var facts Facts
	res.Timings.timed(PhaseLLM, func() { facts, err = h.extractFacts(ctx, job, changed) })
	if err != nil {
		_ = h.writeStatus(ctx, &res, job, StatusFailed, nil, time.Time{})
		return res, err
	}

	p := buildPlan(job, facts, sourceTexts(changed), h.d.ContainsQuote)
	res.Kept, res.Dropped = p.kept, p.dropped
	if err := h.writePlan(ctx, &res, job, p, h.keepHashes(conceptNode, changed), now); err != nil {
		return res, err
	}
	res.Outcome = OutcomeEnriched
	return res, nil
}

func (h *Handler) selectSources(job queue.EnrichmentRequested) []string {
	return h.d.Sources.Select(sources.Request{ConceptID: job.ConceptID, Domain: job.Domain, Kind: job.Kind, Jurisdiction: job.Jurisdiction, SourceURLs: job.SourceURLs})
}

// enrichHeld runs a held job: a captured kind outside the vocabulary, with
// no node. The sources are read and the model asked as for any concept;
// only when a verified quote names the concept does it get a node, under
// the id the page's wording gives (officialTarget), and the facts are
// written to it. Otherwise nothing is written: no status either, as that
// would make the node. Errors and logs never carry the held id.
func (h *Handler) enrichHeld(ctx context.Context, res *Result, job queue.EnrichmentRequested, now time.Time) error {
	urls := h.selectSources(job)
	res.Sources = len(urls)
	if len(urls) == 0 {
		res.Outcome = OutcomeNoSources
		return nil
	}
	changed, _ := h.readSources(ctx, res, job, urls, nil)
	res.Changed = len(changed)
	if len(changed) == 0 {
		return fmt.Errorf("none of %d sources could be fetched and read", len(urls))
	}
	var facts Facts
	var err error
	res.Timings.timed(PhaseLLM, func() { facts, err = h.extractFacts(ctx, job, changed) })
	if err != nil {
		return err
	}
	texts := sourceTexts(changed)
	named := buildPlan(job, facts, texts, h.d.ContainsQuote).confirmed
	if named == nil {
		res.Outcome = OutcomeNotNamed
		return nil
	}
	official, ok, err := h.officialTarget(ctx, job, named.PrefLabel)
	if err != nil {
		return err
	}
	if !ok {
		res.Outcome = OutcomeNotNamed
		return nil
	}
	res.ConceptID = official.ConceptID
	p := buildPlan(official, facts, texts, h.d.ContainsQuote)
	if p.confirmed == nil {
		res.Outcome = OutcomeNotNamed
		return nil
	}
	res.Kept, res.Dropped = p.kept, p.dropped
	hashes := make([]string, 0, len(changed))
	for _, s := range changed {
		hashes = append(hashes, s.hash)
	}
	if err := h.writePlan(ctx, res, official, p, hashes, now); err != nil {
		return err
	}
	res.Outcome = OutcomeEnriched
	return nil
}

// officialTarget is the job a held concept becomes once an official page
// names it: its kind is the page's name in canonical form (hyphens read as
// spaces, "Value-Added Tax" is VALUE_ADDED_TAX), or the node that name
// already resolves to (a vocabulary kind whose node holds it as an alias).
// ok is false when the name cannot be a kind (WellShapedKind).
func (h *Handler) officialTarget(ctx context.Context, job queue.EnrichmentRequested, name string) (queue.EnrichmentRequested, bool, error) {
	kind := concept.IDPart(strings.ReplaceAll(name, "-", " "), "")
	if kind == "" || !concept.WellShapedKind(kind) {
		return job, false, nil
	}
	c := concept.Normalize(concept.Concept{Domain: job.Domain, Jurisdiction: job.Jurisdiction, Kind: kind, PrefLabel: name})
	ids, err := h.d.Writes.Reads().ResolveConcepts(ctx, []concept.Concept{c})
	if err != nil {
		return job, false, fmt.Errorf("resolve the official name of a held concept: %w", err)
	}
	id := c.ID
	if len(ids) == 1 && ids[0] != "" {
		id = ids[0]
	}
	parts := strings.Split(id, ":")
	if len(parts) != 3 {
		return job, false, nil
	}
	return queue.EnrichmentRequested{ConceptID: id, Domain: parts[0], Jurisdiction: parts[1], Kind: parts[2], SourceURLs: job.SourceURLs}, true, nil
}

// readConcept returns the job's concept node, or fresh when it already has
// detail (or was verified within Freshness) and the job has nothing to do.
func (h *Handler) readConcept(ctx context.Context, res *Result, job queue.EnrichmentRequested, now time.Time) (conceptNode graph.Node, fresh bool, err error) {
	reads := h.d.Writes.Reads()
	var nodes []graph.Node
	res.Timings.timed(PhaseGraphRead, func() {
		if !h.cfg.IgnoreExistingDetail {
			fresh, err = reads.HasUsefulDetail(ctx, job.ConceptID, now.Add(-h.cfg.Freshness))
		}
		if err == nil && !fresh {
			nodes, err = reads.GetNodesByIDs(ctx, []string{job.ConceptID})
		}
	})
	if err != nil {
		return graph.Node{}, false, fmt.Errorf("read concept %s: %w", concept.LogID(job.ConceptID), err)
	}
	if fresh {
		return graph.Node{}, true, nil
	}
	if len(nodes) == 0 {
		return graph.Node{}, false, fmt.Errorf("%w: %s", ErrUnknownConcept, concept.LogID(job.ConceptID))
	}
	return nodes[0], false, nil
}

// readSources fetches the URLs and extracts their text. It returns the
// sources whose content hash is not in processed, and how many were skipped
// because it was; a source that cannot be read counts as neither.
func (h *Handler) readSources(ctx context.Context, res *Result, job queue.EnrichmentRequested, urls []string, processed map[string]bool) (changed []source, unchanged int) {
	docs := h.fetchAll(ctx, res, urls)
	res.Timings.timed(PhaseExtract, func() {
		for _, doc := range docs {
			ex, err := h.d.Extractor.Extract(doc)
			if err != nil {
				h.log.WarnContext(ctx, "source text extraction failed", "concept_id", concept.LogID(job.ConceptID), "host", hostOf(doc.URL), "bytes", len(doc.Body), "err", err)
				continue
			}
			if processed[ex.SHA256] {
				unchanged++
				continue
			}
			changed = append(changed, source{url: doc.URL, text: ex.Text, hash: ex.SHA256})
		}
	})
	return changed, unchanged
}

// sourceTexts maps each source's URL to its text: the evidence facts are
// checked against.
func sourceTexts(changed []source) map[string]string {
	texts := make(map[string]string, len(changed))
	for _, s := range changed {
		texts[s.url] = s.text
	}
	return texts
}

// fetchAll fetches the URLs concurrently and returns the documents that
// arrived, in URL order. A failed fetch is logged by host only.
func (h *Handler) fetchAll(ctx context.Context, res *Result, urls []string) []Document {
	docs := make([]*Document, len(urls))
	res.Timings.timed(PhaseFetch, func() {
		var fetches errgroup.Group
		fetches.SetLimit(h.cfg.FetchConcurrency)
		for i, u := range urls {
			fetches.Go(func() error {
				doc, err := h.d.Fetcher.Fetch(ctx, u)
				if err != nil {
					h.log.WarnContext(ctx, "source fetch failed", "host", hostOf(u), "reason", fetchFailure(err), "permanent", fetch.IsPermanent(err))
					return nil // a failed source is skipped, not fatal
				}
				if doc.URL == "" {
					doc.URL = u
				}
				docs[i] = &doc
				return nil
			})
		}
		_ = fetches.Wait()
	})
	var out []Document
	for _, d := range docs {
		if d != nil {
			out = append(out, *d)
		}
	}
	res.Fetched = len(out)
	return out
}

// extractFacts makes the one LLM call and returns the validated tool
// arguments. The stream is read to its end; text the model writes besides
// the tool call is ignored.
func (h *Handler) extractFacts(ctx context.Context, job queue.EnrichmentRequested, docs []source) (Facts, error) {
	req := buildRequest(h.cfg.Model, job, docs, newNonce(), h.cfg.MaxSourceChars, h.cfg.MaxPromptChars)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := h.d.Provider.Stream(ctx, req)
	if err != nil {
		return Facts{}, fmt.Errorf("extraction call: %w", err)
	}
	var args []byte
	var streamErr error
	for chunk := range stream {
		switch chunk.Type {
		case llm.ChunkTool:
			if chunk.ToolName == ToolName && args == nil {
				args = chunk.ArgsJSON
			}
		case llm.ChunkError:
			streamErr = chunk.Err
		}
	}
	if streamErr != nil {
		return Facts{}, fmt.Errorf("extraction call: %w", streamErr)
	}
	if args == nil {
		return Facts{}, ErrNoExtraction
	}
	return ParseFacts(args)
}

// writePlan resolves related concepts (so edges to them have both ends),
// records the new rate and threshold values, then writes the other facts
// and the concept's status in one guarded write.
func (h *Handler) writePlan(ctx context.Context, res *Result, job queue.EnrichmentRequested, p plan, hashes []string, now time.Time) error {
	var err error
	res.Timings.timed(PhaseGraphWrite, func() {
		if err = h.writeConcepts(ctx, res, &p); err != nil {
			return
		}
		var r write.Result
		if len(p.values) > 0 {
			// Before the status: a concept is marked enriched only once its
			// values are in.
			if r, err = h.d.Writes.RecordFactValues(ctx, p.values); err != nil {
				return
			}
			res.Rejected += len(r.Rejected)
		}
		nodes := append(p.nodes, statusNode(job.ConceptID, StatusEnriched, hashes, now))
		r, err = h.d.Writes.Write(ctx, nodes, p.edges)
		res.Rejected += len(r.Rejected)
	})
	if err != nil {
		_ = h.writeStatus(ctx, res, job, StatusFailed, nil, time.Time{})
		return fmt.Errorf("write facts of %s: %w", concept.LogID(job.ConceptID), err)
	}
	return nil
}

// conceptWrite is one ResolveConcepts call: concepts of one provenance.
type conceptWrite struct {
	concepts []concept.Concept
	prov     graph.Provenance
}

// writeConcepts writes the job's concept as official when a verified quote
// names it, and the related concepts: official when their quote names
// them, else bare. Edges to related concepts the guard refused are dropped.
func (h *Handler) writeConcepts(ctx context.Context, res *Result, p *plan) error {
	written := map[string]bool{}
	groups := []conceptWrite{{p.officialRelated, graph.ProvenanceOfficial}, {p.related, graph.ProvenanceCapture}}
	if p.confirmed != nil {
		groups = append(groups, conceptWrite{[]concept.Concept{*p.confirmed}, graph.ProvenanceOfficial})
	}
	for _, g := range groups {
		if len(g.concepts) == 0 {
			continue
		}
		r, err := h.d.Writes.ResolveConcepts(ctx, g.concepts, g.prov)
		if err != nil {
			return err
		}
		res.Rejected += len(r.Rejected)
		for _, id := range r.Written {
			written[id] = true
		}
	}
	p.edges = slices.DeleteFunc(p.edges, func(e graph.EdgeWrite) bool { return e.Type == "RELATED_TO" && !written[e.ToID] })
	return nil
}

// writeStatus records the concept's ingestion status; verifiedAt, when not
// zero, becomes last_verified_at.
func (h *Handler) writeStatus(ctx context.Context, res *Result, job queue.EnrichmentRequested, status string, hashes []string, verifiedAt time.Time) error {
	var err error
	res.Timings.timed(PhaseGraphWrite, func() {
		_, err = h.d.Writes.Write(ctx, []graph.NodeWrite{statusNode(job.ConceptID, status, hashes, verifiedAt)}, nil)
	})
	if err != nil {
		return fmt.Errorf("record %s status of %s: %w", status, concept.LogID(job.ConceptID), err)
	}
	return nil
}

func statusNode(conceptID, status string, hashes []string, verifiedAt time.Time) graph.NodeWrite {
	props := map[string]any{"ingestion_status": status}
	if !verifiedAt.IsZero() {
		props["last_verified_at"] = graph.Timestamp(verifiedAt)
	}
	if hashes != nil {
		props[write.SourceContentHashesKey] = hashes
	}
	return graph.NodeWrite{Label: "Concept", ID: conceptID, Props: props}
}

// keepHashes appends the new sources' hashes to the concept's list, keeping
// the most recent MaxStoredHashes.
func (h *Handler) keepHashes(n graph.Node, changed []source) []string {
	have, _ := n.Properties[write.SourceContentHashesKey].([]string)
	out := slices.Clone(have)
	for _, s := range changed {
		if !slices.Contains(out, s.hash) {
			out = append(out, s.hash)
		}
	}
	if len(out) > h.cfg.MaxStoredHashes {
		out = out[len(out)-h.cfg.MaxStoredHashes:]
	}
	return out
}

func stringSet(v any) map[string]bool {
	set := map[string]bool{}
	switch l := v.(type) {
	case []string:
		for _, s := range l {
			set[s] = true
		}
	case []any:
		for _, s := range l {
			if str, ok := s.(string); ok {
				set[str] = true
			}
		}
	}
	return set
}

// fetchFailure names why a fetch failed without the error text, which can
// carry the full URL: logs name hosts only.
func fetchFailure(err error) string {
	var status *fetch.StatusError
	switch {
	case errors.As(err, &status):
		return "http_" + strconv.Itoa(status.Code)
	case errors.Is(err, fetch.ErrBlocked):
		return "blocked"
	case errors.Is(err, fetch.ErrTooLarge):
		return "too_large"
	case errors.Is(err, fetch.ErrContentType):
		return "content_type"
	case errors.Is(err, fetch.ErrTooManyRedirects):
		return "too_many_redirects"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return "network"
}

// hostOf is what logs say about a URL: its host, never its path or query.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "?"
	}
	return u.Hostname()
}
