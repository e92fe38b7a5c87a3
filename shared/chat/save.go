package chat

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"regintel/shared/concept"
	"regintel/shared/conversation"
	"regintel/shared/pii"
	"regintel/shared/prompt"
	"regintel/shared/queue"
)

// saved is the turn as stored, ready for the closing events.
type saved struct {
	status   conversation.TurnStatus
	number   int // 0 when nothing was stored
	request  *conversation.ContextRequest
	metadata Metadata
}

// save resolves the captured concepts, queues them for the graph, stores
// the turn and merges its concepts into the conversation's context. Each
// part is additive: its failure is a warning.
func (t *Turn) save(ctx context.Context, out *conversed, fitted prompt.Fitted) saved {
	e := t.e
	concepts, refs := t.resolveConcepts(ctx, out.captured)
	t.publishConcepts(ctx, concepts)
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = r.ID
	}
	// The answer as it was decided while streaming (and recorded): PII
	// split across deltas is caught there, each part redacted once.
	answer, _ := t.answer.whole()
	storedQuestion := t.storedQuestion()
	s := saved{status: conversation.TurnOK}
	if out.err == nil && !out.interrupted && !out.cut && out.requested != nil {
		s.request = t.createRequest(ctx, out.requested, storedQuestion)
	}
	switch {
	case out.cut:
		s.status = conversation.TurnInterrupted
	case out.interrupted:
		s.status = conversation.TurnInterrupted
		t.log.Warn("the client went away mid-answer; the turn is stored as interrupted", "model_calls", out.calls)
	case out.err != nil:
		s.status = conversation.TurnError
		t.log.Error("llm stream failed", "err", out.err, "provider", e.provider.Name())
	case s.request != nil:
		s.status = conversation.TurnContextRequired
	}
	s.metadata = t.metadata(out, fitted, refs, s.request)
	s.number = t.store(ctx, conversation.Turn{
		UserText: storedQuestion, AssistantText: answer, Status: s.status,
		Provider: e.provider.Name(), Model: e.cfg.Model,
		Usage:     out.usage,
		LatencyMS: s.metadata.LatencyMS, ReferencedNodes: ids, Metadata: s.metadata.TurnMetadata,
		Profile: t.sentProfile(), LeaseID: t.state.LeaseID,
	}, conversation.TurnFinish{ActiveNodes: ids, MaxNodes: e.cfg.MaxActiveNodes, UsedItems: fitted.SuppliedIDs})
	if s.number > 0 {
		s.metadata.TurnNumber = &s.number
	}
	return s
}

// metadata is the final metadata of the turn (its turn number is set once stored).
func (t *Turn) metadata(out *conversed, fitted prompt.Fitted, refs []conversation.ConceptRef, request *conversation.ContextRequest) Metadata {
	e := t.e
	usage := fitted.Usage
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = r.ID
	}
	m := Metadata{
		ReferencedNodes: ids, Jurisdictions: t.jurisdictions(refs), UncertaintyLevel: t.uncertainty(ids),
		DisclaimerKey: DisclaimerKey, AgentID: e.cfg.AgentID,
		Usage: TurnUsage{Usage: out.usage, Calls: out.callUsage}, Provider: e.provider.Name(), Model: e.cfg.Model,
		LatencyMS: time.Since(t.started).Milliseconds(), Stateless: t.req.Stateless,
		TurnMetadata: conversation.TurnMetadata{
			QueryComposition: fitted.Composition, Context: &usage, ModelCalls: out.calls, Warnings: slices.Clone(t.warnings),
			Concepts: refs, Citations: t.citations(t.allCitedLines(fitted.Facts)), AsOf: t.asOfMetadata(),
		},
	}
	if m.Warnings == nil {
		m.Warnings = []string{}
	}
	if e.redact.store {
		m.Redaction = pii.Version
	}
	if results := calculationsOf(out.calculations); len(results) > 0 {
		m.Citations = withCalculationCitations(m.Citations, results)
		m.Calculations, _ = json.Marshal(results)
	}
	switch {
	case request != nil:
		m.ContextRequestID = request.ID
	case t.resumed != nil:
		m.ContextRequestID = t.resumed.ID
	}
	if id := t.ConversationID(); id != "" {
		m.ConversationID = &id
	}
	if t.number > 0 {
		n := t.number
		m.TurnNumber = &n
	}
	return m
}

func (t *Turn) publishConcepts(ctx context.Context, concepts []concept.Concept) {
	if len(concepts) == 0 || t.e.concepts == nil {
		return
	}
	env, err := queue.NewEnvelope(queue.TypeConceptsCaptured, queue.ConceptsCaptured{TenantID: t.req.TenantID, Concepts: concepts})
	if err == nil {
		qctx, cancel := t.e.storeCtx(ctx)
		err = t.e.concepts.Publish(qctx, env)
		cancel()
	}
	if err != nil {
		t.log.Error("enqueue captured concepts failed", "err", err, "concepts", len(concepts))
		t.counts.publishFailures++
		t.warn("Captured concepts could not be queued for the rules graph; the answer is unaffected.")
	}
}

// store saves the turn with its context (concepts merged, used items
// marked): the reserved turn is finished in place, all in one round trip;
// a turn whose reservation was not stored is appended now. It returns the
// turn number, or 0 when nothing was stored.
func (t *Turn) store(ctx context.Context, turn conversation.Turn, f conversation.TurnFinish) int {
	if !t.persist {
		return 0
	}
	e := t.e
	tenant, conv := t.req.TenantID, t.state.Conversation.ID
	sctx, cancel := e.storeCtx(ctx)
	defer cancel()
	if t.number > 0 {
		turn.Number = t.number
		err := e.store.FinishTurn(sctx, tenant, conv, turn, f)
		t.finished.Store(err == nil || errors.Is(err, conversation.ErrContextNotSaved))
		switch {
		case errors.Is(err, conversation.ErrContextNotSaved):
			t.contextNotSaved(f, err)
		case err != nil:
			t.log.Error("save turn failed", "err", err)
			t.warn("This turn could not be saved to the conversation history.")
			if len(f.ActiveNodes) > 0 {
				t.warn("Conversation context could not be updated; later turns may not recall this answer's concepts.")
			}
		}
		return t.number
	}
	number, err := e.store.AppendTurn(sctx, tenant, conv, turn)
	if err != nil {
		t.log.Error("save turn failed", "err", err)
		t.warn("This turn could not be saved to the conversation history.")
		number = 0
	}
	if len(f.ActiveNodes) > 0 {
		if err := e.store.MergeActiveNodes(sctx, tenant, conv, f.ActiveNodes, f.MaxNodes); err != nil {
			t.contextNotSaved(f, err)
		}
	}
	t.touchSupplied(ctx, f.UsedItems)
	return number
}

// contextNotSaved reports a context that was not updated: a warning when
// the turn had concepts to remember, a log line either way.
func (t *Turn) contextNotSaved(f conversation.TurnFinish, err error) {
	if len(f.ActiveNodes) == 0 {
		if len(f.UsedItems) > 0 {
			t.log.Warn("mark supplied context used failed", "err", err)
		}
		return
	}
	t.log.Error("save conversation context failed", "err", err)
	t.warn("Conversation context could not be updated; later turns may not recall this answer's concepts.")
}

// close sends the closing events: the error, or the late warnings, the
// context request or disclaimer, the metadata; then done.
func (t *Turn) close(sink Sink, out *conversed, s saved, sentWarnings int) Result {
	if out.interrupted {
		// Nobody is reading; the status is for the caller and the logs.
		_ = sink.Event(EventDone, map[string]string{"status": string(conversation.TurnInterrupted)})
		return Result{Status: string(conversation.TurnInterrupted), Answer: out.answer.String(), Metadata: s.metadata}
	}
	if out.err != nil {
		// A failed turn still tells the client its usage, turn and warnings.
		s.metadata.Warnings = append([]string{}, t.warnings...)
		_ = sink.Event(EventMetadata, s.metadata)
		_ = sink.Event(EventError, map[string]string{"code": ErrorCodeModelFailed, "message": "The assistant could not complete this answer. The partial answer was kept; please try again."})
		_ = sink.Event(EventDone, map[string]string{"status": "error"})
		return Result{Status: "error", Answer: out.answer.String(), Metadata: s.metadata}
	}
	if extra := t.warnings[sentWarnings:]; len(extra) > 0 {
		_ = sink.Event(EventWarning, map[string]any{"warnings": extra})
	}
	s.metadata.Warnings = slices.Clone(t.warnings)
	if s.metadata.Warnings == nil {
		s.metadata.Warnings = []string{}
	}
	status := "ok"
	if out.cut {
		// The client is still reading: it gets the warning, the metadata
		// and why the answer ended.
		_ = sink.Event(EventDisclaimer, map[string]string{"text": disclaimerText, "key": DisclaimerKey})
		_ = sink.Event(EventMetadata, s.metadata)
		_ = sink.Event(EventDone, map[string]string{"status": string(conversation.TurnInterrupted), "reason": DoneReasonLength})
		return Result{Status: string(conversation.TurnInterrupted), Answer: out.answer.String(), Metadata: s.metadata}
	}
	if s.request != nil {
		status = string(conversation.TurnContextRequired)
		_ = sink.Event(EventContextRequest, contextRequestEvent{RequestID: s.request.ID, Items: s.request.Items, ExpiresAt: s.request.ExpiresAt})
	} else {
		_ = sink.Event(EventDisclaimer, map[string]string{"text": disclaimerText, "key": DisclaimerKey})
	}
	_ = sink.Event(EventMetadata, s.metadata)
	_ = sink.Event(EventDone, map[string]string{"status": status})
	return Result{Status: status, Answer: out.answer.String(), Metadata: s.metadata}
}

// profileSent is whether the request carries a profile; one that does
// replaces the conversation's remembered profile.
func (t *Turn) profileSent() bool {
	return t.req.Profile.PersonaType != "" || len(t.req.Profile.Jurisdictions) > 0
}

// sentProfile is the profile to remember with the turn (nil: keep the
// conversation's).
func (t *Turn) sentProfile() *Profile {
	if !t.profileSent() {
		return nil
	}
	p := t.req.Profile
	// Stored with the conversation: a free-text persona as chat text is.
	p.PersonaType = t.e.storedText(p.PersonaType)
	return &p
}

// profile is the turn's profile: the request's, else the one the
// conversation remembers.
func (t *Turn) profile() Profile {
	if !t.profileSent() && t.state.Conversation.Profile != nil {
		return *t.state.Conversation.Profile
	}
	return t.req.Profile
}

func (t *Turn) profileJurisdictions() []string {
	profile := t.profile()
	out := make([]string, 0, len(profile.Jurisdictions))
	for _, j := range profile.Jurisdictions {
		out = append(out, concept.IDPart(j, "GLOBAL"))
	}
	return out
}

// jurisdictions of the answer: the profile's, then those of the concepts.
func (t *Turn) jurisdictions(refs []conversation.ConceptRef) []string {
	out := t.profileJurisdictions()
	for _, r := range refs {
		if j := jurisdictionOf(r.ID); j != "" && j != "GLOBAL" && !slices.Contains(out, j) {
			out = append(out, j)
		}
	}
	return out
}

// uncertainty is a coarse signal for the UI: low when the answer is tied to
// concepts already established in this conversation, medium when it
// captured concepts, high when it could not be tied to any.
func (t *Turn) uncertainty(ids []string) string {
	if len(ids) == 0 {
		return "high"
	}
	for _, id := range ids {
		if slices.Contains(t.state.Context.ActiveNodeIDs, id) {
			return "low"
		}
	}
	return "medium"
}
