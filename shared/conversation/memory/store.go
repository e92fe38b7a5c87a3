// Package memory is an in-process conversation.Store with the same
// semantics as conversation/postgres, for `make dev` without DATABASE_URL
// and for tests that do not need a database. State lives for the life of
// the process.
package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"regintel/shared/conversation"
)

// Store implements conversation.Store with one mutex over all state: every
// method is one critical section, which is what makes appends and merges
// atomic.
type Store struct {
	mu            sync.Mutex
	conversations map[key]*record
	// usage is the total tokens per tenant and UTC day.
	usage map[usageKey]int64
	// charged is the daily cap's ledger per tenant and UTC day (ledger.go).
	charged map[usageKey]charges
	// reserved are the unsettled charges per tenant, by id (ledger.go).
	reserved map[string]map[string]reservation
}

type usageKey struct{ tenantID, day string }

var _ conversation.Store = (*Store)(nil)

// key scopes a conversation by tenant and owner, so a lookup by another
// user of the tenant finds nothing, as in Postgres.
type key struct{ tenantID, ownerID, conversationID string }

type record struct {
	conversation conversation.Conversation
	turns        []conversation.Turn
	// context is nil until the first merge, like an absent row.
	context *conversation.Context
	// Context handoff (handoff.go); they go with the record when it is deleted.
	requests []conversation.ContextRequest
	supplied []conversation.SuppliedItem
	// lease is the running turn's, nil when none was taken or it was given back.
	lease *turnLease
	// stream is the latest recorded turn stream (streams.go), nil until one.
	stream *recordedStream
	// feedback is the user's feedback by turn number (feedback.go).
	feedback map[int]conversation.Feedback
	// followers are the stream followers' places and their leases
	// (followers.go).
	followers map[string]time.Time
}

type turnLease struct {
	id    string
	until time.Time
}

// New returns an empty store.
func New() *Store {
	return &Store{conversations: map[key]*record{}, usage: map[usageKey]int64{}, charged: map[usageKey]charges{},
		reserved: map[string]map[string]reservation{}}
}

// ids are compared in canonical (lower-case) form, as Postgres does for uuid.
func canonical(id string) (string, bool) {
	if len(id) != 36 || uuid.Validate(id) != nil {
		return "", false
	}
	return strings.ToLower(id), true
}

// scope is the key of a conversation of the owner in ctx.
func scope(ctx context.Context, tenantID, conversationID string) (key, error) {
	tenant, ok := canonical(tenantID)
	if !ok {
		return key{}, conversation.ErrInvalidTenant
	}
	owner, err := conversation.OwnerOf(ctx)
	if err != nil {
		return key{}, err
	}
	id, ok := canonical(conversationID)
	if !ok {
		return key{}, conversation.ErrNotFound
	}
	return key{tenant, owner, id}, nil
}

// CreateConversation stores c under a new id (or c.ID, which must be an
// unused uuid).
func (s *Store) CreateConversation(ctx context.Context, c conversation.Conversation) (conversation.Conversation, error) {
	if err := ctx.Err(); err != nil {
		return conversation.Conversation{}, err
	}
	tenant, ok := canonical(c.TenantID)
	if !ok {
		return conversation.Conversation{}, conversation.ErrInvalidTenant
	}
	if c.OwnerID == "" {
		return conversation.Conversation{}, conversation.ErrNoOwner
	}
	id := uuid.NewString()
	if c.ID != "" {
		if id, ok = canonical(c.ID); !ok {
			return conversation.Conversation{}, errors.New("create conversation: id is not a uuid")
		}
	}
	now := time.Now()
	stored := conversation.Conversation{
		ID:            id,
		TenantID:      c.TenantID,
		OwnerID:       c.OwnerID,
		Title:         c.Title,
		Jurisdictions: cloneStrings(c.Jurisdictions),
		Archived:      c.Archived,
		Profile:       storedProfile(c.Profile),
		CreatedAt:     now,
		UpdatedAt:     now,
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	// Ids are unique across tenants, as the primary key is in Postgres.
	for k := range s.conversations {
		if k.conversationID == id {
			return conversation.Conversation{}, fmt.Errorf("create conversation %s: %w", id, conversation.ErrIDTaken)
		}
	}
	s.conversations[key{tenant, c.OwnerID, id}] = &record{conversation: stored}
	return copyConversation(stored), nil
}

// recordFor returns the conversation's record; the caller holds s.mu; a
// conversation of another tenant or owner is ErrNotFound.
func (s *Store) recordFor(ctx context.Context, tenantID, conversationID string) (*record, error) {
	k, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return nil, err
	}
	r, ok := s.conversations[k]
	if !ok {
		return nil, conversation.ErrNotFound
	}
	return r, nil
}

// update runs fn on the caller's conversation under the write lock.
func (s *Store) update(ctx context.Context, tenantID, conversationID string, fn func(*record) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.recordFor(ctx, tenantID, conversationID)
	if err != nil {
		return err
	}
	return fn(r)
}

// LoadTurnState returns the conversation, its last historyTurns turns
// (oldest first), its context and its handoff state. The memory store
// cannot fail to load either, so ContextErr and HandoffErr are never set.
func (s *Store) LoadTurnState(ctx context.Context, tenantID, conversationID string, historyTurns int) (conversation.TurnState, error) {
	if err := ctx.Err(); err != nil {
		return conversation.TurnState{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.recordFor(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.TurnState{}, err
	}
	return r.turnState(historyTurns), nil
}

// StartTurn is LoadTurnState that also takes the turn lease, reads the
// tenant's usage today and reserves the turn, in the same critical section.
func (s *Store) StartTurn(ctx context.Context, tenantID, conversationID string, start conversation.TurnStart) (conversation.TurnState, error) {
	if err := ctx.Err(); err != nil {
		return conversation.TurnState{}, err
	}
	k, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.TurnState{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.conversations[k]
	if !ok {
		return conversation.TurnState{}, conversation.ErrNotFound
	}
	now := time.Now()
	if r.lease != nil && now.Before(r.lease.until) {
		return conversation.TurnState{}, conversation.ErrTurnInProgress
	}
	r.lease = &turnLease{id: uuid.NewString(), until: now.Add(leaseDuration(start.LeaseFor))}
	state := r.turnState(start.HistoryTurns)
	state.LeaseID = r.lease.id
	s.reserveStarted(k.tenantID, r, start, &state)
	return state, nil
}

// reserveStarted reads the usage (given a limit) and reserves the turn
// when asked, as the Postgres store does: not at the limit, not while a
// context request is pending. The caller holds s.mu.
func (s *Store) reserveStarted(tenant string, r *record, start conversation.TurnStart, state *conversation.TurnState) {
	now := time.Now()
	if start.DailyTokenLimit > 0 {
		state.TenantTokensToday = s.usage[usageKey{tenant, conversation.UsageDay(now)}]
		if state.TenantTokensToday >= start.DailyTokenLimit {
			return
		}
	}
	if r.handoffState().Pending != nil {
		return
	}
	switch {
	case start.Retry:
		if restarted, ok := r.restartLast(now, start.Regenerate); ok {
			state.Reserved = &restarted
		}
	case start.Reserve != nil:
		reserved := r.append(conversation.Turn{UserText: start.Reserve.UserText, Status: conversation.TurnStreaming,
			Profile: start.Reserve.Profile}, conversation.TurnMetadata{}, now)
		state.Reserved = &reserved
	}
}

// StartConversation creates c holding the lease and reserves its first
// turn, unless the tenant reached start.DailyTokenLimit.
func (s *Store) StartConversation(ctx context.Context, c conversation.Conversation, start conversation.TurnStart) (conversation.TurnState, error) {
	if err := ctx.Err(); err != nil {
		return conversation.TurnState{}, err
	}
	if tenant, ok := canonical(c.TenantID); ok && start.DailyTokenLimit > 0 {
		s.mu.Lock()
		used := s.usage[usageKey{tenant, conversation.UsageDay(time.Now())}]
		s.mu.Unlock()
		if used >= start.DailyTokenLimit {
			return conversation.TurnState{TenantTokensToday: used}, nil
		}
	}
	created, err := s.CreateConversation(ctx, c)
	if err != nil {
		return conversation.TurnState{}, err
	}
	start.DailyTokenLimit = 0
	state, err := s.StartTurn(conversation.WithOwner(ctx, c.OwnerID), c.TenantID, created.ID, start)
	if err != nil {
		return conversation.TurnState{}, err
	}
	state.Conversation = created
	return state, nil
}

func leaseDuration(d time.Duration) time.Duration {
	if d <= 0 {
		return conversation.DefaultTurnLease
	}
	return d
}

// EndTurn gives back the lease if it is still leaseID.
func (s *Store) EndTurn(ctx context.Context, tenantID, conversationID, leaseID string) error {
	return s.update(ctx, tenantID, conversationID, func(r *record) error {
		r.endLease(leaseID)
		return nil
	})
}

func (r *record) endLease(leaseID string) {
	if r.lease != nil && leaseID != "" && r.lease.id == leaseID {
		r.lease = nil
	}
}

// TenantTokensToday returns the tenant's usage on the current UTC day.
func (s *Store) TenantTokensToday(ctx context.Context, tenantID string) (int64, error) {
	k, err := todayKey(ctx, tenantID)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage[k], nil
}

// turnState copies what a turn needs; the caller holds s.mu.
func (r *record) turnState(historyTurns int) conversation.TurnState {
	recent := r.turns[len(r.turns)-min(max(historyTurns, 0), len(r.turns)):]
	state := conversation.TurnState{
		Conversation: copyConversation(r.conversation),
		History:      make([]conversation.Turn, 0, len(recent)),
		Context:      conversation.Context{ActiveNodeIDs: []string{}},
	}
	for _, t := range recent {
		state.History = append(state.History, copyTurn(t))
	}
	if r.context != nil {
		state.Context.ActiveNodeIDs = cloneStrings(r.context.ActiveNodeIDs)
	}
	handoff := r.handoffState()
	state.Handoff = &handoff
	return state
}

// AppendTurn stores t under the next turn number and returns it; a non-nil
// t.Profile replaces the conversation's profile in the same step.
func (s *Store) AppendTurn(ctx context.Context, tenantID, conversationID string, t conversation.Turn) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	k, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return 0, err
	}
	// Round-trip metadata through JSON as the database does.
	metadata, err := roundTripMetadata(t.Metadata)
	if err != nil {
		return 0, fmt.Errorf("append turn: metadata: %w", err)
	}
	if t.Status == "" {
		t.Status = conversation.TurnOK
	}
	if !t.Status.Valid() {
		return 0, fmt.Errorf("append turn: %q is not a turn status", t.Status)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.conversations[k]
	if !ok {
		return 0, conversation.ErrNotFound
	}
	now := time.Now()
	stored := r.append(t, metadata, now)
	r.endLease(t.LeaseID)
	if t.Status != conversation.TurnStreaming {
		s.usage[usageKey{k.tenantID, conversation.UsageDay(now)}] += int64(t.Usage.TotalTokens)
	}
	return stored.Number, nil
}

// append stores t under the next number; the caller holds s.mu.
func (r *record) append(t conversation.Turn, metadata conversation.TurnMetadata, now time.Time) conversation.Turn {
	r.conversation.LastTurnNumber++
	r.conversation.UpdatedAt = now
	if t.Profile != nil {
		r.conversation.Profile = storedProfile(t.Profile)
	}
	stored := copyTurn(t)
	stored.Number = r.conversation.LastTurnNumber
	stored.CreatedAt = now
	stored.Metadata = metadata
	r.turns = append(r.turns, stored)
	return copyTurn(stored)
}

// MergeActiveNodes merges ids into activeNodeIds: an id seen again moves to
// the newest end, empty ids are dropped, and the newest maxNodes are kept
// (zero or less means conversation.DefaultMaxActiveNodes).
func (s *Store) MergeActiveNodes(ctx context.Context, tenantID, conversationID string, ids []string, maxNodes int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	k, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return err
	}
	if maxNodes <= 0 {
		maxNodes = conversation.DefaultMaxActiveNodes
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.conversations[k]
	if !ok {
		return conversation.ErrNotFound
	}
	var previous []string
	if r.context != nil {
		previous = r.context.ActiveNodeIDs
	}
	r.context = &conversation.Context{ActiveNodeIDs: mergeByRecency(previous, ids, maxNodes)}
	return nil
}

// mergeByRecency returns the union of previous and incoming in recency
// order: each id keeps the position of its last occurrence in
// previous+incoming, empty ids are dropped, and only the newest maxNodes
// remain. It mirrors the SQL function merge_active_node_ids.
func mergeByRecency(previous, incoming []string, maxNodes int) []string {
	all := slices.Concat(previous, incoming)
	seen := make(map[string]bool, len(all))
	newestFirst := make([]string, 0, min(len(all), max(maxNodes, 0)))
	for i := len(all) - 1; i >= 0 && len(newestFirst) < maxNodes; i-- {
		id := all[i]
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		newestFirst = append(newestFirst, id)
	}
	slices.Reverse(newestFirst)
	return newestFirst
}

// roundTripMetadata copies metadata through JSON, as the database stores
// it, so nothing the caller keeps is shared with the store.
func roundTripMetadata(m conversation.TurnMetadata) (conversation.TurnMetadata, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return conversation.TurnMetadata{}, err
	}
	var out conversation.TurnMetadata
	err = json.Unmarshal(b, &out)
	return out, err
}

func copyConversation(c conversation.Conversation) conversation.Conversation {
	c.Jurisdictions = cloneStrings(c.Jurisdictions)
	c.Profile = storedProfile(c.Profile)
	return c
}

// storedProfile copies p as the Postgres store returns it (jurisdictions
// an empty list rather than null); nil stays nil.
func storedProfile(p *conversation.Profile) *conversation.Profile {
	if p == nil {
		return nil
	}
	return &conversation.Profile{PersonaType: p.PersonaType, Jurisdictions: cloneStrings(p.Jurisdictions)}
}

// copyTurn detaches a turn from the caller's (or the store's) slices and
// maps, so nobody can change stored state from outside the mutex. Stored
// metadata came from JSON, so its round trip cannot fail.
func copyTurn(t conversation.Turn) conversation.Turn {
	t.ReferencedNodes = cloneStrings(t.ReferencedNodes)
	// The profile belongs to the conversation, not to the stored turn.
	t.Profile = nil
	t.LeaseID = ""
	if copied, err := roundTripMetadata(t.Metadata); err == nil {
		t.Metadata = copied
	}
	return t
}

// cloneStrings copies s, keeping empty lists as [] rather than null.
func cloneStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return slices.Clone(s)
}

// ReserveTurn stores the question of a new turn, status streaming, under
// the next number.
func (s *Store) ReserveTurn(ctx context.Context, tenantID, conversationID string, t conversation.Turn) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	started := conversation.Turn{UserText: t.UserText, Status: conversation.TurnStreaming, Profile: t.Profile}
	return s.AppendTurn(ctx, tenantID, conversationID, started)
}

// RetryTurn restarts the last turn when it failed or was interrupted.
func (s *Store) RetryTurn(ctx context.Context, tenantID, conversationID string) (conversation.Turn, error) {
	if err := ctx.Err(); err != nil {
		return conversation.Turn{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.recordFor(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.Turn{}, err
	}
	restarted, ok := r.restartLast(time.Now(), false)
	if !ok {
		return conversation.Turn{}, conversation.ErrNotRetryable
	}
	return restarted, nil
}

// restartLast puts the last turn back to streaming if it is retryable
// (or, regenerating, finished at all); the caller holds s.mu.
func (r *record) restartLast(now time.Time, regenerate bool) (conversation.Turn, bool) {
	if len(r.turns) == 0 {
		return conversation.Turn{}, false
	}
	if status := r.turns[len(r.turns)-1].Status; !status.Retryable() && (!regenerate || status == conversation.TurnStreaming) {
		return conversation.Turn{}, false
	}
	last := &r.turns[len(r.turns)-1]
	last.Status = conversation.TurnStreaming
	last.AssistantText = ""
	// Feedback was on the answer being replaced.
	delete(r.feedback, last.Number)
	r.conversation.UpdatedAt = now
	return copyTurn(*last), true
}

// FinishTurn stores the outcome of turn t.Number, gives the lease back,
// adds the turn's tokens to the tenant's day and applies f, in one
// critical section.
func (s *Store) FinishTurn(ctx context.Context, tenantID, conversationID string, t conversation.Turn, f conversation.TurnFinish) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	k, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return err
	}
	if err := finishable(t.Status); err != nil {
		return err
	}
	metadata, err := roundTripMetadata(t.Metadata)
	if err != nil {
		return fmt.Errorf("finish turn: metadata: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.conversations[k]
	if !ok {
		return conversation.ErrNotFound
	}
	i := slices.IndexFunc(r.turns, func(stored conversation.Turn) bool { return stored.Number == t.Number })
	if i < 0 {
		return conversation.ErrNotFound
	}
	stored := copyTurn(t)
	stored.UserText = r.turns[i].UserText
	stored.CreatedAt = r.turns[i].CreatedAt
	stored.Metadata = metadata
	r.turns[i] = stored
	now := time.Now()
	r.conversation.UpdatedAt = now
	r.endLease(t.LeaseID)
	s.usage[usageKey{k.tenantID, conversation.UsageDay(now)}] += int64(t.Usage.TotalTokens)
	if len(f.ActiveNodes) > 0 {
		var previous []string
		if r.context != nil {
			previous = r.context.ActiveNodeIDs
		}
		maxNodes := f.MaxNodes
		if maxNodes <= 0 {
			maxNodes = conversation.DefaultMaxActiveNodes
		}
		r.context = &conversation.Context{ActiveNodeIDs: mergeByRecency(previous, f.ActiveNodes, maxNodes)}
	}
	for i := range r.supplied {
		if slices.Contains(f.UsedItems, r.supplied[i].ID) {
			r.supplied[i].LastUsedAt = now
		}
	}
	return nil
}

// finishable checks the status a turn is finished with: a final one.
func finishable(status conversation.TurnStatus) error {
	if !status.Valid() || status == conversation.TurnStreaming {
		return fmt.Errorf("finish turn: %q is not a final turn status", status)
	}
	return nil
}
