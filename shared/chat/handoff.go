package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"

	"regintel/shared/conversation"
	"regintel/shared/llm"
	"regintel/shared/strictjson"
)

// Context handoff: the model calls request_context when it needs
// facts only the user has; the turn ends with a context_request event and
// the question is answered once the client supplies the context.

// RequestContextToolName is the tool the model calls to ask for context.
const RequestContextToolName = "request_context"

// EventContextRequest carries {"requestId","items","expiresAt"}.
const EventContextRequest = "context_request"

// Limits on what the model may ask for and what the client may supply.
const (
	MaxRequestedItems   = 10
	MaxSuppliedItems    = 20
	MaxSuppliedChars    = 20000 // per item
	MaxItemKeyChars     = 64
	MaxDescriptionChars = 500
)

// RequestContextTool is the request_context function tool.
func RequestContextTool() llm.Tool {
	return llm.Tool{
		Name: RequestContextToolName,
		Description: "Ask the user for facts or documents you need to answer well, instead of guessing. " +
			"The question is answered after the user supplies them.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"items": map[string]any{
					"type":     "array",
					"minItems": 1,
					"maxItems": MaxRequestedItems,
					"items": map[string]any{
						"type": "object",
						"properties": map[string]any{
							"key":         map[string]any{"type": "string", "description": "short snake_case name, e.g. annual_income"},
							"description": map[string]any{"type": "string", "description": "what the user should provide, in plain words"},
							"kind":        map[string]any{"type": "string", "enum": []string{conversation.KindProfileFact, conversation.KindDocument, conversation.KindText}},
							"required":    map[string]any{"type": "boolean", "description": "true when the question cannot be answered without it"},
						},
						"required": []string{"key", "description", "kind"},
					},
				},
			},
			"required": []string{"items"},
		},
	}
}

var itemKeyPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// normalizeKey makes a model-chosen key usable: trimmed, spaces to _,
// bounded. It returns "" for a key that cannot be used.
func normalizeKey(key string) string {
	key = strings.Join(strings.Fields(key), "_")
	if len(key) > MaxItemKeyChars || !itemKeyPattern.MatchString(key) {
		return ""
	}
	return key
}

// parseRequestContext reads the model's request_context arguments with the
// strict decoder. Items with unusable keys are dropped; an unknown kind
// becomes text.
func parseRequestContext(args json.RawMessage) ([]conversation.RequestedItem, error) {
	var raw struct {
		Items []struct {
			Key         string `json:"key"`
			Description string `json:"description"`
			Kind        string `json:"kind"`
			Required    *bool  `json:"required"`
		} `json:"items"`
	}
	if err := strictjson.Decode(args, &raw); err != nil {
		return nil, err
	}
	var items []conversation.RequestedItem
	seen := map[string]bool{}
	for _, it := range raw.Items {
		key := normalizeKey(it.Key)
		if key == "" || seen[key] {
			continue
		}
		seen[key] = true
		kind := it.Kind
		if !conversation.ValidKind(kind) {
			kind = conversation.KindText
		}
		desc := sanitizeText(it.Description)
		if r := []rune(desc); len(r) > MaxDescriptionChars {
			desc = string(r[:MaxDescriptionChars])
		}
		// Items are required unless the model says otherwise.
		required := it.Required == nil || *it.Required
		items = append(items, conversation.RequestedItem{Key: key, Description: desc, Kind: kind, Required: required})
		if len(items) == MaxRequestedItems {
			break
		}
	}
	if len(items) == 0 {
		return nil, errors.New("no usable items")
	}
	return items, nil
}

// Supply is context the client supplies with a request: to a pending
// context request (RequestID set) or unasked, to the conversation.
type Supply struct {
	RequestID string          `json:"requestId"`
	Items     []SuppliedInput `json:"items"`
}

// SuppliedInput is one item as the client sends it. Kind may be left out
// when the item answers a request: the requested kind is used.
type SuppliedInput struct {
	Key     string `json:"key"`
	Kind    string `json:"kind"`
	Content string `json:"content"`
}

// sanitizeText drops control characters other than newline and tab,
// normalises line ends, repairs invalid UTF-8 and trims.
func sanitizeText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r == '\r' {
			return '\n'
		}
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\uFEFF' {
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// validate checks and sanitises the supply in place.
func (s *Supply) validate() error {
	if s.RequestID != "" {
		if err := validUUID(s.RequestID); err != nil {
			return fmt.Errorf("%w: contextSupply.requestId must be a UUID", ErrInvalid)
		}
	}
	if len(s.Items) == 0 {
		return fmt.Errorf("%w: contextSupply.items must hold at least one item", ErrInvalid)
	}
	if len(s.Items) > MaxSuppliedItems {
		return fmt.Errorf("%w: at most %d context items per supply", ErrInvalid, MaxSuppliedItems)
	}
	for i := range s.Items {
		it := &s.Items[i]
		key := normalizeKey(it.Key)
		if key == "" {
			return fmt.Errorf("%w: items[%d].key must be 1-%d letters, digits, _ . or -", ErrInvalid, i, MaxItemKeyChars)
		}
		it.Key = key
		if it.Kind != "" && !conversation.ValidKind(it.Kind) {
			return fmt.Errorf("%w: items[%d].kind must be profile_fact, document or text", ErrInvalid, i)
		}
		if n := len([]rune(it.Content)); n > MaxSuppliedChars {
			return fmt.Errorf("%w: items[%d].content has %d characters; the limit is %d", ErrInvalid, i, n, MaxSuppliedChars)
		}
		it.Content = sanitizeText(it.Content)
		if it.Content == "" {
			return fmt.Errorf("%w: items[%d].content must not be empty", ErrInvalid, i)
		}
	}
	s.Items = lastOfEachKey(s.Items)
	return nil
}

// lastOfEachKey keeps, of items given under one key, the last: a later
// item replaces an earlier one, as a later supply replaces a stored item.
// The kept items stay in the order of their keys' first appearance.
func lastOfEachKey(items []SuppliedInput) []SuppliedInput {
	at := make(map[string]int, len(items))
	kept := items[:0:0]
	for _, it := range items {
		if i, seen := at[it.Key]; seen {
			kept[i] = it
			continue
		}
		at[it.Key] = len(kept)
		kept = append(kept, it)
	}
	return kept
}

// Handoff outcomes that reach the client as HTTP answers, before streaming.
var (
	// ErrRequestExpired: the request expired before the supply (410).
	ErrRequestExpired = errors.New("context request expired")
)

// PartialSupplyError is a supply that left required items missing: the
// items were stored and the request stays pending (202).
type PartialSupplyError struct {
	Request  conversation.ContextRequest
	Missing  []conversation.RequestedItem
	Supplied []conversation.SuppliedItem
}

func (e *PartialSupplyError) Error() string {
	return fmt.Sprintf("context request %s still misses %d required items", e.Request.ID, len(e.Missing))
}

// PendingRequestError is a new message while a context request waits:
// supply it, or send "forceRun": true to answer without it (409).
type PendingRequestError struct {
	Request conversation.ContextRequest
}

func (e *PendingRequestError) Error() string {
	return fmt.Sprintf("context request %s is pending", e.Request.ID)
}

// RequestClosedError is a supply to a request that is no longer pending (409).
type RequestClosedError struct {
	Status string
}

func (e *RequestClosedError) Error() string {
	return "context request is " + e.Status
}

// contextRequestEvent is the data of EventContextRequest.
type contextRequestEvent struct {
	RequestID string                       `json:"requestId"`
	Items     []conversation.RequestedItem `json:"items"`
	ExpiresAt time.Time                    `json:"expiresAt"`
}

// missingRequired lists the request's required items with no supplied item
// of the same key.
func missingRequired(r conversation.ContextRequest, supplied []conversation.SuppliedItem) []conversation.RequestedItem {
	have := map[string]bool{}
	for _, it := range supplied {
		have[it.Key] = true
	}
	var missing []conversation.RequestedItem
	for _, it := range r.Items {
		if it.Required && !have[it.Key] {
			missing = append(missing, it)
		}
	}
	return missing
}

// mergeSupplied replaces items of the same key with the new ones, keeping
// the list oldest first.
func mergeSupplied(existing, added []conversation.SuppliedItem) []conversation.SuppliedItem {
	keys := map[string]bool{}
	for _, it := range added {
		keys[it.Key] = true
	}
	out := make([]conversation.SuppliedItem, 0, len(existing)+len(added))
	for _, it := range existing {
		if !keys[it.Key] {
			out = append(out, it)
		}
	}
	return append(out, added...)
}

// settleHandoff loads supplied context and the pending request, applies the
// request's supply, and decides what a pending request means for this turn.
func (t *Turn) settleHandoff(ctx context.Context) error {
	sctx, cancel := t.e.storeCtx(ctx)
	defer cancel()
	// The store reads the handoff state with the conversation, in the same
	// round trip.
	var hs conversation.HandoffState
	err := t.state.HandoffErr
	if t.state.Handoff != nil {
		hs = *t.state.Handoff
	} else if err == nil {
		err = errors.New("handoff state not loaded")
	}
	if err != nil {
		if t.req.Supply != nil {
			return err
		}
		t.log.Error("load supplied context failed; answering without it", "err", err)
		t.warn("Context you supplied earlier is unavailable; this answer does not use it.")
		return nil
	}
	t.supplied = hs.Items

	supply := t.req.Supply
	if supply != nil && supply.RequestID != "" {
		if err := t.supplyRequest(sctx, supply); err != nil {
			return err
		}
	}
	if err := t.settlePending(sctx, hs.Pending); err != nil {
		return err
	}
	// Unasked context is stored only once the turn is sure to run.
	if supply != nil && supply.RequestID == "" {
		return t.supplyUnasked(ctx)
	}
	return nil
}

// settlePending decides what a pending request means for this turn: it
// expired (run, warn), is skipped by forceRun (run, warn), or blocks.
func (t *Turn) settlePending(sctx context.Context, pending *conversation.ContextRequest) error {
	e := t.e
	tenant, conv := t.req.TenantID, t.state.Conversation.ID
	if pending == nil || (t.resumed != nil && pending.ID == t.resumed.ID) {
		return nil
	}
	switch {
	case pending.Expired(e.now()):
		if _, err := e.store.ResolveContextRequest(sctx, tenant, conv, pending.ID, conversation.RequestExpired); err != nil && !errors.Is(err, conversation.ErrRequestNotPending) {
			t.log.Error("expire context request failed", "err", err)
		}
		t.warn("The context requested earlier was not supplied in time; this answer runs without it.")
	case t.req.ForceRun:
		if _, err := e.store.ResolveContextRequest(sctx, tenant, conv, pending.ID, conversation.RequestSkipped); err != nil && !errors.Is(err, conversation.ErrRequestNotPending) {
			return err
		}
		t.warn("The context requested earlier was skipped; this answer runs without it.")
	default:
		return &PendingRequestError{Request: *pending}
	}
	return nil
}

// supplyRequest stores a supply to a pending request. With every required
// item present it fulfils the request (exactly once) and the turn answers
// the deferred question; otherwise it reports what is missing.
func (t *Turn) supplyRequest(ctx context.Context, supply *Supply) error {
	e := t.e
	tenant, conv := t.req.TenantID, t.state.Conversation.ID
	r, err := e.store.GetContextRequest(ctx, tenant, conv, supply.RequestID)
	if err != nil {
		return err
	}
	if r.Status != conversation.RequestPending {
		return &RequestClosedError{Status: r.Status}
	}
	if r.Expired(e.now()) {
		if _, err := e.store.ResolveContextRequest(ctx, tenant, conv, r.ID, conversation.RequestExpired); err != nil && !errors.Is(err, conversation.ErrRequestNotPending) {
			return err
		}
		return ErrRequestExpired
	}
	kinds := map[string]string{}
	for _, it := range r.Items {
		kinds[it.Key] = it.Kind
	}
	stored, err := e.store.SupplyItems(ctx, tenant, conv, t.itemsToStore(supply.Items, r.ID, kinds))
	if err != nil {
		return err
	}
	t.supplied = mergeSupplied(t.supplied, stored)
	if missing := missingRequired(r, t.supplied); len(missing) > 0 {
		return &PartialSupplyError{Request: r, Missing: missing, Supplied: stored}
	}
	fulfilled, err := e.store.ResolveContextRequest(ctx, tenant, conv, r.ID, conversation.RequestFulfilled)
	if errors.Is(err, conversation.ErrRequestNotPending) {
		// A concurrent supply fulfilled (or a turn skipped) it first.
		current, getErr := e.store.GetContextRequest(ctx, tenant, conv, r.ID)
		if getErr != nil {
			return getErr
		}
		return &RequestClosedError{Status: current.Status}
	}
	if err != nil {
		return err
	}
	t.resumed = &fulfilled
	if strings.TrimSpace(t.req.Message) == "" {
		t.question = fulfilled.Question
	}
	return nil
}

// supplyUnasked stores context supplied without a request.
func (t *Turn) supplyUnasked(ctx context.Context) error {
	e := t.e
	sctx, cancel := e.storeCtx(ctx)
	defer cancel()
	stored, err := e.store.SupplyItems(sctx, t.req.TenantID, t.state.Conversation.ID, t.itemsToStore(t.req.Supply.Items, "", nil))
	if err != nil {
		t.log.Error("store supplied context failed", "err", err)
		return err
	}
	t.supplied = mergeSupplied(t.supplied, stored)
	return nil
}

// itemsToStore applies the requested kinds and redacts per mode.
func (t *Turn) itemsToStore(in []SuppliedInput, requestID string, kinds map[string]string) []conversation.SuppliedItem {
	out := make([]conversation.SuppliedItem, 0, len(in))
	for _, it := range in {
		kind := it.Kind
		if kind == "" {
			kind = kinds[it.Key]
		}
		if kind == "" {
			kind = conversation.KindText
		}
		// The key is a label the client wrote: stored as its content is.
		key, keyRedacted := t.e.redact.forStore(it.Key)
		content, redacted := t.e.redact.forStore(it.Content)
		out = append(out, conversation.SuppliedItem{RequestID: requestID, Key: key, Kind: kind, Content: content, Redacted: redacted || keyRedacted})
	}
	return out
}

// offerRequestContext: the model may ask for context only when the request
// can be stored and this turn is not already the answer to one (no loops).
func (t *Turn) offerRequestContext() bool {
	return t.e.provider.SupportsTools() && t.persist && t.resumed == nil
}

// createRequest stores the model's context request. A failure is a
// warning: the answer streamed so far stands as the turn's answer.
func (t *Turn) createRequest(ctx context.Context, items []conversation.RequestedItem, question string) *conversation.ContextRequest {
	e := t.e
	sctx, cancel := e.storeCtx(ctx)
	defer cancel()
	r, err := e.store.CreateContextRequest(sctx, conversation.ContextRequest{
		TenantID: t.req.TenantID, ConversationID: t.state.Conversation.ID,
		Items: e.storedRequestItems(items), Question: question, ExpiresAt: e.now().Add(e.cfg.ContextRequestTTL),
	})
	if err != nil {
		t.log.Error("store context request failed", "err", err)
		t.warn("The assistant asked for more context, but the request could not be saved; please add the details to your next message.")
		return nil
	}
	return &r
}

// storedRequestItems are the model's requested items as they may be
// stored: a key or description may repeat what the user wrote.
func (e *Engine) storedRequestItems(items []conversation.RequestedItem) []conversation.RequestedItem {
	out := make([]conversation.RequestedItem, len(items))
	for i, it := range items {
		it.Key = e.storedText(it.Key)
		it.Description = e.storedText(it.Description)
		out[i] = it
	}
	return out
}

func (t *Turn) touchSupplied(ctx context.Context, ids []string) {
	if len(ids) == 0 || !t.persist {
		return
	}
	sctx, cancel := t.e.storeCtx(ctx)
	defer cancel()
	if err := t.e.store.TouchSuppliedItems(sctx, t.req.TenantID, t.state.Conversation.ID, ids); err != nil {
		t.log.Warn("mark supplied context used failed", "err", err)
	}
}

// DeleteSuppliedItem removes a supplied item from a conversation of the
// caller's tenant: later turns no longer include it.
func (e *Engine) DeleteSuppliedItem(ctx context.Context, tenantID, conversationID, itemID string) error {
	sctx, cancel := e.storeCtx(ctx)
	defer cancel()
	return e.store.DeleteSuppliedItem(sctx, tenantID, conversationID, itemID)
}
