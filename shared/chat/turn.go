package chat

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"regintel/shared/asof"
	"regintel/shared/conversation"
	"regintel/shared/graph"
	"regintel/shared/llm"
	"regintel/shared/prompt"
)

// Sink receives the turn's events in order. The HTTP layer writes each one
// as an SSE frame.
type Sink interface {
	Event(name string, data any) error
}

// TextDelta is the data of a message event: the answer's next piece.
type TextDelta struct {
	Text string `json:"text"`
}

// HoldingSink is a Sink that may hold answer deltas instead of sending each
// at once; Flush sends what it holds. The engine flushes whenever the model
// has nothing more waiting, so a burst of deltas leaves in one write and a
// slow model's deltas still leave as they come.
type HoldingSink interface {
	Sink
	Flush() error
}

// flush sends what sink holds, if it holds anything.
func flush(sink Sink) error {
	if h, ok := sink.(HoldingSink); ok {
		return h.Flush()
	}
	return nil
}

// Event names of the stream.
const (
	EventStart      = "start"
	EventMessage    = "message"
	EventWarning    = "warning"
	EventDisclaimer = "disclaimer"
	EventMetadata   = "metadata"
	EventError      = "error"
	EventDone       = "done"
)

// The codes of the error event, so a client can tell failures apart
// without reading the message.
const (
	// ErrorCodeModelFailed: the model failed mid-answer; the partial answer is kept.
	ErrorCodeModelFailed = "model_failed"
	// ErrorCodePrepareFailed: the prompt could not be assembled; nothing was asked.
	ErrorCodePrepareFailed = "prepare_failed"
)

// DoneReasonLength is the reason of a done event whose answer was cut at
// its length bound (AnswerBoundMultiple).
const DoneReasonLength = "length"

// DisclaimerKey names the disclaimer sent with every answer.
const DisclaimerKey = "non_advice_research_tool"

const disclaimerText = "This answer is research assistance, not legal, tax or financial advice. " +
	"Check the official source or a qualified adviser before acting on it."

// Turn is a prepared turn: the conversation exists (or was created) and its
// state is loaded. Errors that must reach the client as HTTP errors (404,
// 409, 410, a partial supply's 202) happen in Prepare, before the first
// byte is streamed.
type Turn struct {
	e       *Engine
	log     *slog.Logger // the engine's, with the request id
	req     Request
	state   conversation.TurnState
	persist bool // false in stateless mode or when the conversation could not be created
	// finished: the turn row holds its final answer, so the recorder no
	// longer writes the answer so far (which only a streaming row takes).
	finished atomic.Bool
	warnings []string
	started  time.Time
	// question is the message answered: the request's, or the deferred
	// question of the context request this turn resumes.
	question string
	// llmQuestion memoises the question as the model and the graph may see
	// it: redaction scans the whole text, and a turn needs it twice.
	llmQuestion *string
	// storeQuestion memoises the question as it may be stored.
	storeQuestion *redactedText
	// supplied is the conversation's supplied context, oldest first.
	supplied []conversation.SuppliedItem
	// resumed is the fulfilled request this turn answers (nil if none).
	resumed *conversation.ContextRequest
	// number is the stored turn's number, taken before the answer streams
	// (0: not stored yet); retried says it replaces a failed turn.
	number  int
	retried bool
	counts  turnCounts // for the observer
	// charge is the turn's worst case charged to the daily cap, until it
	// is settled (nil without a cap).
	charge *conversation.TokenCharge
	// chosenAsOf is the date the answer is about (see asOf), and
	// groundedFacts the facts grounding read, by node id, for citations.
	chosenAsOf    *asof.AsOf
	groundedFacts map[string]*graph.Fact
	// lookedUp are the fact lines lookup_facts calls returned: they join
	// the turn's citations.
	lookedUp []prompt.FactLine
	// answer is the answer as it may be stored, decided as it streams.
	answer *storedAnswer
}

// Start is the first event of every stream: the conversation and turn the
// answer belongs to, so a client can continue or retry it whatever happens
// next. Both are null when nothing is stored (stateless mode, storage down).
type Start struct {
	ConversationID *string `json:"conversationId"`
	TurnNumber     *int    `json:"turnNumber"`
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
	Usage            TurnUsage `json:"usage"`
	Provider         string    `json:"provider"`
	Model            string    `json:"model"`
	LatencyMS        int64     `json:"latencyMs"`
	Stateless        bool      `json:"stateless"`
	// The part the turn keeps: composition, budget, warnings, model calls,
	// concepts, citations and the context request.
	conversation.TurnMetadata
}

// Result summarises a finished turn for the caller (tests, logs).
type Result struct {
	Status   string // "ok", "error", "context_required" or "interrupted"
	Answer   string
	Metadata Metadata
}

func (e *Engine) storeCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), e.cfg.StoreTimeout)
}

// Prepare loads (or creates) the conversation and settles context handoff:
// a supply is stored, a pending request is resumed, expired or skipped. It
// returns conversation.ErrNotFound for a conversation that does not exist in the
// caller's tenant, and the handoff errors of handoff.go. A storage outage
// does not fail the turn: the turn runs without history and says so.
func (e *Engine) Prepare(ctx context.Context, req Request) (*Turn, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	req.Profile, _ = req.Profile.Validate() // normalised: upper-case codes, no repeats
	ctx = conversation.WithOwner(ctx, req.UserID)
	t := &Turn{e: e, req: req, started: time.Now(), question: req.Message, log: e.log.With("request_id", req.RequestID),
		answer: &storedAnswer{redact: e.redact.store}}
	if err := t.chargeDailyCap(ctx); err != nil {
		return nil, err
	}
	var err error
	switch {
	case req.Stateless:
		return t, nil
	case req.ConversationID == "" && req.ChatID != "":
		err = t.loadOrCreate(ctx)
	case req.ConversationID == "":
		err = t.create(ctx)
	default:
		err = t.load(ctx)
	}
	if err == nil {
		err = t.reserve(ctx)
	}
	if err != nil {
		t.endTurn(ctx)
		t.settleDailyCap(ctx, llm.Usage{})
		return nil, err
	}
	return t, nil
}

// turnStart is what the turn's start asks of the store: a plain message
// or a retry is reserved in the same round trip as the load; a supply is
// settled first, since it may stop the turn or change its question.
func (t *Turn) turnStart() conversation.TurnStart {
	e := t.e
	start := conversation.TurnStart{HistoryTurns: e.cfg.HistoryTurns, LeaseFor: e.cfg.TurnLease}
	switch {
	case t.req.Supply != nil:
	case t.req.Retry:
		start.Retry, start.Regenerate = true, t.req.Regenerate
	default:
		start.Reserve = &conversation.Turn{UserText: t.storedQuestion(), Profile: t.sentProfile()}
	}
	return start
}

// load starts the turn of an existing conversation: its state, its lease
// and (see turnStart) its reservation in one round trip; then the handoff
// is settled.
func (t *Turn) load(ctx context.Context) error {
	e, req := t.e, t.req
	sctx, cancel := e.storeCtx(ctx)
	defer cancel()
	state, err := e.store.StartTurn(sctx, req.TenantID, req.ConversationID, t.turnStart())
	switch {
	case errors.Is(err, conversation.ErrNotFound):
		return conversation.ErrNotFound
	case errors.Is(err, conversation.ErrTurnInProgress):
		return conversation.ErrTurnInProgress
	case err != nil:
		if req.Supply != nil || req.Retry {
			// A supply that cannot be stored must not be acknowledged, and
			// a retry cannot know its question.
			return err
		}
		t.log.Error("load conversation failed; answering without history or context", "err", err)
		t.warn("Conversation history and context are unavailable; this answer does not use earlier turns.")
		t.state.Conversation = conversation.Conversation{ID: req.ConversationID, TenantID: req.TenantID}
		t.persist = true // the save may still succeed once storage is back
		return nil
	}
	if state.ContextErr != nil {
		t.log.Error("load conversation context failed; using the empty context", "err", state.ContextErr)
		t.warn("Conversation context is unavailable; earlier concepts are not in this answer's prompt.")
		state.Context = conversation.Context{}
	}
	t.setState(state)
	return t.settleHandoff(ctx)
}

// setState keeps the started turn's state and the turn it reserved.
func (t *Turn) setState(state conversation.TurnState) {
	t.state = state
	t.persist = true
	if r := state.Reserved; r != nil {
		t.number = r.Number
		if t.req.Retry {
			t.retried, t.question = true, r.UserText
		}
	}
}

// reserve takes the turn's number before the answer streams, unless its
// start did: a retry restarts the failed turn (conversation.ErrNotRetryable if the last
// turn did not fail), any other turn stores its question. A turn whose
// reservation cannot be stored still runs, and is appended when it ends.
func (t *Turn) reserve(ctx context.Context) error {
	if !t.persist || t.number > 0 {
		return nil
	}
	e := t.e
	sctx, cancel := e.storeCtx(ctx)
	defer cancel()
	tenant, conv := t.req.TenantID, t.state.Conversation.ID
	if t.req.Retry {
		failed, err := e.store.RetryTurn(sctx, tenant, conv)
		if err != nil {
			return err
		}
		t.number, t.retried, t.question = failed.Number, true, failed.UserText
		return nil
	}
	n, err := e.store.ReserveTurn(sctx, tenant, conv, conversation.Turn{UserText: t.storedQuestion(), Profile: t.sentProfile()})
	if err != nil {
		t.log.Error("start turn failed; the turn is stored when it ends", "err", err)
		return nil
	}
	t.number = n
	return nil
}

// start is the data of the start event.
func (t *Turn) start() Start {
	var s Start
	if id := t.ConversationID(); id != "" {
		s.ConversationID = &id
	}
	if t.number > 0 {
		n := t.number
		s.TurnNumber = &n
	}
	return s
}

// create starts the conversation, remembering the request's profile, with
// its lease and (see turnStart) its first turn reserved in one round trip.
// A storage outage does not fail the turn: it answers without saving.
func (t *Turn) create(ctx context.Context) error {
	return t.createAs(ctx, "")
}

// createAs is create under the chosen id ("": a new one); an id in use is
// conversation.ErrIDTaken.
func (t *Turn) createAs(ctx context.Context, id string) error {
	e, req := t.e, t.req
	sctx, cancel := e.storeCtx(ctx)
	defer cancel()
	c := conversation.Conversation{ID: id, TenantID: req.TenantID, OwnerID: req.UserID,
		Title: titleFrom(e.storedText(req.Message)), Jurisdictions: req.Profile.Jurisdictions}
	if t.profileSent() {
		c.Profile = t.sentProfile()
	}
	start := t.turnStart()
	if start.Reserve != nil {
		start.Reserve.Profile = nil // stored with the conversation
	}
	state, err := e.store.StartConversation(sctx, c, start)
	if err == nil && state.Conversation.ID == "" {
		err = errors.New("start conversation: nothing was created")
	}
	if errors.Is(err, conversation.ErrIDTaken) {
		return err
	}
	if err != nil {
		t.log.Error("create conversation failed; answering without saving", "err", err)
		t.warn("This conversation could not be saved; the answer will not be remembered.")
		return nil
	}
	t.setState(state)
	if req.Supply != nil {
		return t.supplyUnasked(ctx)
	}
	return nil
}

// questionForLLM is the question redacted for the model and the graph.
func (t *Turn) questionForLLM() string {
	if t.llmQuestion == nil {
		q := t.question
		if r := t.e.redact; r.llm && r.store {
			q = t.storedQuestion() // the same redaction
		} else {
			q = r.forLLM(q)
		}
		t.llmQuestion = &q
	}
	return *t.llmQuestion
}

// storedQuestion is the question as it may be stored, redacted once for
// the turn's reservation and its stored row (and, when both are redacted,
// for the model).
func (t *Turn) storedQuestion() string {
	if m := t.storeQuestion; m == nil || m.of != t.question {
		t.storeQuestion = &redactedText{of: t.question, text: t.e.storedText(t.question)}
	}
	return t.storeQuestion.text
}

// redactedText memoises the redaction of a text.
type redactedText struct{ of, text string }

// StoredText is a client's free text (a feedback comment) as the PII mode
// lets it be stored, redacted as a question is.
func (e *Engine) StoredText(text string) string { return e.storedText(text) }

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

// Stream answers the prepared turn into sink, after the start event, in
// five steps: ground it in
// the graph (one read), fit the prompt into the budget, converse with the
// model (the tool loop), save the turn, and send the closing events. It
// returns once the turn is stored and "done" was sent.
func (t *Turn) Stream(ctx context.Context, sink Sink) Result {
	ctx = conversation.WithOwner(ctx, t.req.UserID)
	sink = t.observed(sink)
	_ = sink.Event(EventStart, t.start())
	grounding := t.ground(ctx)
	tools := t.tools()
	fitted, err := t.fit(grounding, tools)
	if err != nil {
		// Only a sheet that rendered at load but not now gets here.
		t.log.Error("prompt assembly failed", "err", err)
		t.settleDailyCap(ctx, llm.Usage{})
		_ = sink.Event(EventError, map[string]string{"code": ErrorCodePrepareFailed, "message": "The assistant could not prepare this answer; please try again."})
		_ = sink.Event(EventDone, map[string]string{"status": "error"})
		return Result{Status: "error"}
	}
	// Warnings known before the answer go out first, so a client can show them early.
	if len(t.warnings) > 0 {
		_ = sink.Event(EventWarning, map[string]any{"warnings": t.warnings})
	}
	sent := len(t.warnings)
	out := t.converse(ctx, sink, fitted, tools)
	t.e.priceUsage(out, t.log)
	t.settleDailyCap(ctx, out.usage)
	saved := t.save(ctx, out, fitted)
	return t.close(sink, out, saved, sent)
}
