package chat

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"time"

	"regintel/shared/concept"
	"regintel/shared/conversation"
	"regintel/shared/llm"
	"regintel/shared/prompt"
	"regintel/shared/queue"
)

// Sink receives the turn's events in order. The HTTP layer writes each one
// as an SSE frame and flushes it.
type Sink interface {
	Event(name string, data any) error
}

// Event names of the stream.
const (
	EventMessage    = "message"
	EventWarning    = "warning"
	EventDisclaimer = "disclaimer"
	EventMetadata   = "metadata"
	EventError      = "error"
	EventDone       = "done"
)

// DisclaimerKey names the disclaimer sent with every answer.
const DisclaimerKey = "non_advice_research_tool"

const disclaimerText = "This answer is research assistance, not legal, tax or financial advice. " +
	"Check the official source or a qualified adviser before acting on it."

// Turn is a prepared turn: the conversation exists (or was created) and its
// state is loaded. Errors that must reach the client as HTTP errors (404,
// 409, 410, a partial supply's 202) happen in Prepare, before the first
// byte is streamed.
type Turn struct {
	e        *Engine
	req      Request
	state    conversation.TurnState
	persist  bool // false in stateless mode or when the conversation could not be created
	warnings []string
	started  time.Time
	// question is the message answered: the request's, or the deferred
	// question of the context request this turn resumes.
	question string
	// supplied is the conversation's supplied context, oldest first.
	supplied []conversation.SuppliedItem
	// resumed is the fulfilled request this turn answers (nil if none).
	resumed *conversation.ContextRequest
}

// Metadata is the final metadata event.
type Metadata struct {
	ConversationID   *string   `json:"conversationId"`
	TurnNumber       *int      `json:"turnNumber"`
	ReferencedNodes  []string  `json:"referencedNodes"`
	Jurisdictions    []string  `json:"jurisdictions"`
	UncertaintyLevel string    `json:"uncertaintyLevel"`
	DisclaimerKey    string    `json:"disclaimerKey"`
	AgentID          string    `json:"agentId"`
	Warnings         []string  `json:"warnings"`
	Usage            llm.Usage `json:"usage"`
	Provider         string    `json:"provider"`
	Model            string    `json:"model"`
	LatencyMS        int64     `json:"latencyMs"`
	Stateless        bool      `json:"stateless"`
	// QueryComposition is chat, kb, doc or hybrid.
	QueryComposition string        `json:"queryComposition"`
	Context          *ContextUsage `json:"context,omitempty"`
	// ContextRequestID is the request this turn raised (status
	// context_required) or resumed.
	ContextRequestID string `json:"contextRequestId,omitempty"`
}

// Result summarises a finished turn for the caller (tests, logs).
type Result struct {
	Status   string // "ok", "error" or "context_required"
	Answer   string
	Metadata Metadata
}

func (e *Engine) storeCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), e.cfg.StoreTimeout)
}

// Prepare loads (or creates) the conversation and settles context handoff:
// a supply is stored, a pending request is resumed, expired or skipped. It
// returns ErrNotFound for a conversation that does not exist in the
// caller's tenant, and the handoff errors of handoff.go. A storage outage
// does not fail the turn: the turn runs without history and says so.
func (e *Engine) Prepare(ctx context.Context, req Request) (*Turn, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	t := &Turn{e: e, req: req, started: time.Now(), question: req.Message}
	if req.Stateless {
		return t, nil
	}
	log := e.log.With("request_id", req.RequestID)
	if req.Supply != nil && e.handoff == nil {
		return nil, ErrHandoffUnavailable
	}
	if req.ConversationID == "" {
		sctx, cancel := e.storeCtx(ctx)
		defer cancel()
		conv, err := e.store.CreateConversation(sctx, conversation.Conversation{
			TenantID: req.TenantID, OwnerID: req.UserID, Title: titleFrom(e.storedText(req.Message)),
			Jurisdictions: req.Profile.Jurisdictions,
		})
		if err != nil {
			log.Error("create conversation failed; answering without saving", "err", err)
			t.warn("This conversation could not be saved; the answer will not be remembered.")
			return t, nil
		}
		t.state.Conversation = conv
		t.persist = true
		if req.Supply != nil {
			if err := t.supplyUnasked(ctx, log); err != nil {
				return nil, err
			}
		}
		return t, nil
	}
	sctx, cancel := e.storeCtx(ctx)
	defer cancel()
	state, err := e.store.LoadTurnState(sctx, req.TenantID, req.ConversationID, e.cfg.HistoryTurns)
	switch {
	case errors.Is(err, conversation.ErrNotFound):
		return nil, ErrNotFound
	case err != nil:
		if req.Supply != nil {
			// A supply that cannot be stored must not be acknowledged.
			return nil, err
		}
		log.Error("load conversation failed; answering without history or context", "err", err)
		t.warn("Conversation history and context are unavailable; this answer does not use earlier turns.")
		t.state.Conversation = conversation.Conversation{ID: req.ConversationID, TenantID: req.TenantID}
		t.persist = true // the save may still succeed once storage is back
		return t, nil
	}
	if state.ContextErr != nil {
		log.Error("load conversation context failed; using the empty context", "err", state.ContextErr)
		t.warn("Conversation context is unavailable; earlier concepts are not in this answer's prompt.")
		state.Context = conversation.Context{}
	}
	t.state = state
	t.persist = true
	if err := t.settleHandoff(ctx, log); err != nil {
		return nil, err
	}
	return t, nil
}

// storedText is text as it may be stored under the PII mode.
func (e *Engine) storedText(text string) string {
	out, _ := e.redact.forStore(text)
	return out
}

// ConversationID is the id of the prepared turn's conversation ("" if none).
func (t *Turn) ConversationID() string {
	if !t.persist {
		return ""
	}
	return t.state.Conversation.ID
}

func (t *Turn) warn(msg string) { t.warnings = append(t.warnings, msg) }

func titleFrom(message string) string {
	title := strings.Join(strings.Fields(message), " ")
	if r := []rune(title); len(r) > 80 {
		title = string(r[:80]) + "…"
	}
	return title
}

// Stream runs the LLM call and sends the events to sink. It returns when the
// turn is stored and "done" was sent.
func (t *Turn) Stream(ctx context.Context, sink Sink) Result {
	e := t.e
	log := e.log.With("request_id", t.req.RequestID)
	fitted, err := t.assemble(ctx, log)
	if err != nil {
		// Only a sheet that renders at load but not now gets here.
		log.Error("prompt assembly failed", "err", err)
		_ = sink.Event(EventError, map[string]string{"message": "The assistant could not prepare this answer; please try again."})
		_ = sink.Event(EventDone, map[string]string{"status": "error"})
		return Result{Status: "error"}
	}
	// Warnings known before the answer go out first, so a client can show them early.
	if len(t.warnings) > 0 {
		_ = sink.Event(EventWarning, map[string]any{"warnings": t.warnings})
	}
	sentWarnings := len(t.warnings)

	llmReq := llm.Request{Model: e.cfg.Model, System: fitted.system, Messages: fitted.messages, Temperature: -1}
	if e.provider.SupportsTools() {
		llmReq.Tools = []llm.Tool{concept.CaptureTool()}
		if t.offerRequestContext() {
			llmReq.Tools = append(llmReq.Tools, RequestContextTool())
		}
	}

	var (
		answer    strings.Builder
		concepts  []concept.Concept
		requested []conversation.RequestedItem
		usage     llm.Usage
		llmErr    error
	)
	chunks, err := e.provider.Stream(ctx, llmReq)
	if err != nil {
		llmErr = err
	} else {
		for ch := range chunks {
			switch ch.Type {
			case llm.ChunkText:
				answer.WriteString(ch.Delta)
				if err := sink.Event(EventMessage, map[string]string{"text": ch.Delta}); err != nil {
					log.Warn("client went away mid-stream", "err", err)
				}
			case llm.ChunkTool:
				if ch.ToolName == RequestContextToolName && t.offerRequestContext() {
					if items, err := parseRequestContext(ch.ArgsJSON); err != nil {
						log.Warn("request_context arguments unusable; answering without a request", "err", err, "bytes", len(ch.ArgsJSON))
					} else {
						requested = items
					}
					continue
				}
				concepts = append(concepts, t.handleTool(ch, log)...)
			case llm.ChunkUsage:
				if ch.Usage != nil {
					usage = *ch.Usage
				}
			case llm.ChunkError:
				llmErr = ch.Err
			}
		}
	}
	if llmErr == nil && ctx.Err() != nil {
		llmErr = ctx.Err()
	}

	concepts = dedupeConcepts(concepts)
	ids := make([]string, 0, len(concepts))
	for _, c := range concepts {
		ids = append(ids, c.ID)
	}
	t.publishConcepts(ctx, concepts, log)

	// Redaction runs on the whole answer, so PII split across deltas is
	// caught before it is stored.
	storedAnswer, _ := e.redact.forStore(answer.String())
	storedQuestion := e.storedText(t.question)

	var request *conversation.ContextRequest
	if llmErr == nil && requested != nil {
		request = t.createRequest(ctx, requested, storedQuestion, log)
	}

	status := conversation.TurnOK
	switch {
	case llmErr != nil:
		status = conversation.TurnError
		log.Error("llm stream failed", "err", llmErr, "provider", e.provider.Name())
	case request != nil:
		status = conversation.TurnContextRequired
	}
	latency := time.Since(t.started)
	metadata := map[string]any{"queryComposition": fitted.composition, "context": fitted.usage}
	requestID := ""
	switch {
	case request != nil:
		requestID = request.ID
	case t.resumed != nil:
		requestID = t.resumed.ID
	}
	if requestID != "" {
		metadata["contextRequestId"] = requestID
	}
	if len(t.warnings) > 0 {
		metadata["warnings"] = append([]string{}, t.warnings...)
	}
	turnNumber := t.save(ctx, conversation.Turn{
		UserText: storedQuestion, AssistantText: storedAnswer, Status: status,
		Provider: e.provider.Name(), Model: e.cfg.Model,
		Usage:     usage,
		LatencyMS: latency.Milliseconds(), ReferencedNodes: ids, Metadata: metadata,
	}, ids, log)
	t.touchSupplied(ctx, fitted.suppliedIDs, log)

	if llmErr != nil {
		_ = sink.Event(EventError, map[string]string{"message": "The assistant could not complete this answer. The partial answer was kept; please try again."})
		_ = sink.Event(EventDone, map[string]string{"status": "error"})
		return Result{Status: "error", Answer: answer.String()}
	}

	if extra := t.warnings[sentWarnings:]; len(extra) > 0 {
		_ = sink.Event(EventWarning, map[string]any{"warnings": extra})
	}
	if request != nil {
		_ = sink.Event(EventContextRequest, contextRequestEvent{RequestID: request.ID, Items: request.Items, ExpiresAt: request.ExpiresAt})
	} else {
		_ = sink.Event(EventDisclaimer, map[string]string{"text": disclaimerText, "key": DisclaimerKey})
	}
	usageCopy := fitted.usage
	meta := Metadata{
		ReferencedNodes:  ids,
		Jurisdictions:    t.jurisdictions(concepts),
		UncertaintyLevel: t.uncertainty(concepts),
		DisclaimerKey:    DisclaimerKey,
		AgentID:          e.cfg.AgentID,
		Warnings:         append([]string{}, t.warnings...),
		Usage:            usage,
		Provider:         e.provider.Name(),
		Model:            e.cfg.Model,
		LatencyMS:        latency.Milliseconds(),
		Stateless:        t.req.Stateless,
		QueryComposition: fitted.composition,
		Context:          &usageCopy,
		ContextRequestID: requestID,
	}
	if id := t.ConversationID(); id != "" {
		meta.ConversationID = &id
	}
	if turnNumber > 0 {
		meta.TurnNumber = &turnNumber
	}
	_ = sink.Event(EventMetadata, meta)
	doneStatus := "ok"
	if request != nil {
		doneStatus = string(conversation.TurnContextRequired)
	}
	_ = sink.Event(EventDone, map[string]string{"status": doneStatus})
	return Result{Status: doneStatus, Answer: answer.String(), Metadata: meta}
}

// assemble renders the prompt from the sheet within the token budget.
// Everything sent to the model passes the llm redaction first.
func (t *Turn) assemble(ctx context.Context, log *slog.Logger) (assembly, error) {
	e := t.e
	data := prompt.Data{
		AgentID:         e.cfg.AgentID,
		Jurisdictions:   t.profileJurisdictions(),
		PersonaType:     e.redact.forLLM(t.req.Profile.PersonaType),
		CaptureConcepts: e.provider.SupportsTools(),
		RequestContext:  t.offerRequestContext(),
	}
	if ids := t.state.Context.ActiveNodeIDs; len(ids) > 0 && e.graph != nil {
		gctx, cancel := context.WithTimeout(ctx, e.cfg.GraphTimeout)
		lines, err := prompt.ConversationConcepts(gctx, e.graph, ids)
		cancel()
		if err != nil {
			log.Error("conversation context aspect failed; leaving it out", "err", err, "active_nodes", len(ids))
			t.warn("The rules graph is unavailable; concepts from earlier turns are not in this answer's prompt.")
		} else {
			data.Concepts = lines
		}
	}
	in := contextInput{data: data, question: e.redact.forLLM(t.question)}
	if t.req.Stateless {
		in.clientMessages = []llm.Message{}
		for _, m := range t.req.Messages {
			in.clientMessages = append(in.clientMessages, llm.Message{Role: m.Role, Content: e.redact.forLLM(m.Content)})
		}
	} else {
		for _, turn := range t.state.History {
			// A turn that asked for context is repeated by the turn that
			// answers it; sending both would duplicate the question.
			if turn.Status == conversation.TurnContextRequired {
				continue
			}
			turn.UserText = e.redact.forLLM(turn.UserText)
			turn.AssistantText = e.redact.forLLM(turn.AssistantText)
			in.history = append(in.history, turn)
		}
	}
	for _, it := range t.supplied {
		it.Content = e.redact.forLLM(it.Content)
		in.supplied = append(in.supplied, it)
	}
	return e.fitContext(in)
}

func (t *Turn) handleTool(ch llm.Chunk, log *slog.Logger) []concept.Concept {
	if ch.ToolName != concept.CaptureToolName {
		log.Warn("ignoring call to unknown tool", "tool", ch.ToolName)
		return nil
	}
	concepts, skipped, err := concept.ParseCapture(ch.ArgsJSON)
	if err != nil {
		log.Warn("capture_concepts arguments malformed; skipping concept capture", "err", err, "bytes", len(ch.ArgsJSON))
		t.warn("Concept capture was skipped for part of this answer (the model's tool output was malformed).")
		return nil
	}
	if skipped > 0 {
		log.Warn("capture_concepts entries skipped", "skipped", skipped)
	}
	return concepts
}

func dedupeConcepts(in []concept.Concept) []concept.Concept {
	seen := map[string]bool{}
	out := in[:0]
	for _, c := range in {
		if !seen[c.ID] {
			seen[c.ID] = true
			out = append(out, c)
		}
	}
	return out
}

func (t *Turn) publishConcepts(ctx context.Context, concepts []concept.Concept, log *slog.Logger) {
	if len(concepts) == 0 || t.e.concepts == nil {
		return
	}
	env, err := queue.NewEnvelope(queue.TypeConceptsCaptured, queue.ConceptsCaptured{Concepts: concepts})
	if err == nil {
		qctx, cancel := t.e.storeCtx(ctx)
		err = t.e.concepts.Publish(qctx, env)
		cancel()
	}
	if err != nil {
		log.Error("enqueue captured concepts failed", "err", err, "concepts", len(concepts))
		t.warn("Captured concepts could not be queued for the rules graph; the answer is unaffected.")
	}
}

// save stores the turn and merges its concepts into the context; both are
// additive. It returns the turn number, or 0 when nothing was stored.
func (t *Turn) save(ctx context.Context, turn conversation.Turn, ids []string, log *slog.Logger) int {
	if !t.persist {
		return 0
	}
	e := t.e
	tenant, conv := t.req.TenantID, t.state.Conversation.ID
	sctx, cancel := e.storeCtx(ctx)
	defer cancel()
	number, err := e.store.AppendTurn(sctx, tenant, conv, turn)
	if err != nil {
		log.Error("save turn failed", "err", err)
		t.warn("This turn could not be saved to the conversation history.")
		number = 0
	}
	if len(ids) > 0 {
		if err := e.store.MergeActiveNodes(sctx, tenant, conv, ids, e.cfg.MaxActiveNodes); err != nil {
			log.Error("save conversation context failed", "err", err)
			t.warn("Conversation context could not be updated; later turns may not recall this answer's concepts.")
		}
	}
	return number
}

func (t *Turn) profileJurisdictions() []string {
	out := make([]string, 0, len(t.req.Profile.Jurisdictions))
	for _, j := range t.req.Profile.Jurisdictions {
		out = append(out, concept.IDPart(j, "GLOBAL"))
	}
	return out
}

// jurisdictions of the answer: the profile's, then those of the concepts.
func (t *Turn) jurisdictions(concepts []concept.Concept) []string {
	out := t.profileJurisdictions()
	for _, c := range concepts {
		if c.Jurisdiction != "" && c.Jurisdiction != "GLOBAL" && !slices.Contains(out, c.Jurisdiction) {
			out = append(out, c.Jurisdiction)
		}
	}
	return out
}

// uncertainty is a coarse signal for the UI: low when the answer is tied to
// concepts already established in this conversation, medium when it
// captured concepts, high when it could not be tied to any.
func (t *Turn) uncertainty(concepts []concept.Concept) string {
	if len(concepts) == 0 {
		return "high"
	}
	for _, c := range concepts {
		if slices.Contains(t.state.Context.ActiveNodeIDs, c.ID) {
			return "low"
		}
	}
	return "medium"
}
