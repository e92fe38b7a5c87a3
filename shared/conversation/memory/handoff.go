package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"regintel/shared/conversation"
)

func copyRequest(r conversation.ContextRequest) conversation.ContextRequest {
	r.Items = slices.Clone(r.Items)
	if r.Items == nil {
		r.Items = []conversation.RequestedItem{}
	}
	if r.ResolvedAt != nil {
		at := *r.ResolvedAt
		r.ResolvedAt = &at
	}
	return r
}

// CreateContextRequest stores r as pending.
func (s *Store) CreateContextRequest(ctx context.Context, r conversation.ContextRequest) (conversation.ContextRequest, error) {
	if err := ctx.Err(); err != nil {
		return conversation.ContextRequest{}, err
	}
	if r.ExpiresAt.IsZero() {
		return conversation.ContextRequest{}, errors.New("create context request: expiry is required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.recordFor(ctx, r.TenantID, r.ConversationID)
	if err != nil {
		return conversation.ContextRequest{}, err
	}
	stored := copyRequest(r)
	stored.ID = uuid.NewString()
	stored.ConversationID = rec.conversation.ID
	stored.Status = conversation.RequestPending
	stored.CreatedAt = time.Now()
	stored.ResolvedAt = nil
	rec.requests = append(rec.requests, stored)
	return copyRequest(stored), nil
}

// findRequest returns the index of the request; the caller holds s.mu.
func (s *Store) findRequest(ctx context.Context, tenantID, conversationID, requestID string) (*record, int, error) {
	rec, err := s.recordFor(ctx, tenantID, conversationID)
	if errors.Is(err, conversation.ErrNotFound) {
		return nil, 0, conversation.ErrRequestNotFound
	}
	if err != nil {
		return nil, 0, err
	}
	id, ok := canonical(requestID)
	if !ok {
		return nil, 0, conversation.ErrRequestNotFound
	}
	for i, r := range rec.requests {
		if r.ID == id {
			return rec, i, nil
		}
	}
	return nil, 0, conversation.ErrRequestNotFound
}

// GetContextRequest returns one request of the conversation.
func (s *Store) GetContextRequest(ctx context.Context, tenantID, conversationID, requestID string) (conversation.ContextRequest, error) {
	if err := ctx.Err(); err != nil {
		return conversation.ContextRequest{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, i, err := s.findRequest(ctx, tenantID, conversationID, requestID)
	if err != nil {
		return conversation.ContextRequest{}, err
	}
	return copyRequest(rec.requests[i]), nil
}

// ListContextRequests returns the conversation's requests, oldest first.
func (s *Store) ListContextRequests(ctx context.Context, tenantID, conversationID string) ([]conversation.ContextRequest, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.recordFor(ctx, tenantID, conversationID)
	if errors.Is(err, conversation.ErrNotFound) {
		return []conversation.ContextRequest{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]conversation.ContextRequest, 0, len(rec.requests))
	for _, r := range rec.requests {
		out = append(out, copyRequest(r))
	}
	return out, nil
}

// ResolveContextRequest moves a pending request to status, exactly once
// (the mutex makes the check and the update one step).
func (s *Store) ResolveContextRequest(ctx context.Context, tenantID, conversationID, requestID, status string) (conversation.ContextRequest, error) {
	if err := ctx.Err(); err != nil {
		return conversation.ContextRequest{}, err
	}
	switch status {
	case conversation.RequestFulfilled, conversation.RequestExpired, conversation.RequestSkipped:
	default:
		return conversation.ContextRequest{}, fmt.Errorf("resolve context request: status %q is not a final status", status)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, i, err := s.findRequest(ctx, tenantID, conversationID, requestID)
	if err != nil {
		return conversation.ContextRequest{}, err
	}
	r := &rec.requests[i]
	if r.Status != conversation.RequestPending {
		return conversation.ContextRequest{}, conversation.ErrRequestNotPending
	}
	now := time.Now()
	r.Status = status
	r.ResolvedAt = &now
	return copyRequest(*r), nil
}

// LoadHandoffState returns the newest pending request and the supplied items.
func (s *Store) LoadHandoffState(ctx context.Context, tenantID, conversationID string) (conversation.HandoffState, error) {
	if err := ctx.Err(); err != nil {
		return conversation.HandoffState{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.recordFor(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.HandoffState{}, err
	}
	return rec.handoffState(), nil
}

// handoffState is the newest pending request and a copy of the supplied
// items; the caller holds s.mu.
func (r *record) handoffState() conversation.HandoffState {
	state := conversation.HandoffState{Items: slices.Clone(r.supplied)}
	if state.Items == nil {
		state.Items = []conversation.SuppliedItem{}
	}
	for i := len(r.requests) - 1; i >= 0; i-- {
		if r.requests[i].Status == conversation.RequestPending {
			pending := copyRequest(r.requests[i])
			state.Pending = &pending
			break
		}
	}
	return state
}

// SupplyItems stores items, replacing earlier items with the same keys.
func (s *Store) SupplyItems(ctx context.Context, tenantID, conversationID string, items []conversation.SuppliedItem) ([]conversation.SuppliedItem, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	keys := map[string]bool{}
	for _, it := range items {
		if keys[it.Key] {
			return nil, fmt.Errorf("supply context: key %q given twice", it.Key)
		}
		keys[it.Key] = true
		if !conversation.ValidKind(it.Kind) {
			return nil, fmt.Errorf("supply context: kind %q is not a context kind", it.Kind)
		}
		if it.RequestID != "" {
			if _, ok := canonical(it.RequestID); !ok {
				return nil, conversation.ErrRequestNotFound
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.recordFor(ctx, tenantID, conversationID)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return []conversation.SuppliedItem{}, nil
	}
	rec.supplied = slices.DeleteFunc(rec.supplied, func(it conversation.SuppliedItem) bool { return keys[it.Key] })
	now := time.Now()
	out := make([]conversation.SuppliedItem, 0, len(items))
	for _, it := range items {
		it.ID = uuid.NewString()
		it.TenantID = rec.conversation.TenantID
		it.ConversationID = rec.conversation.ID
		if it.RequestID != "" {
			it.RequestID, _ = canonical(it.RequestID)
		}
		it.CreatedAt, it.LastUsedAt = now, now
		rec.supplied = append(rec.supplied, it)
		out = append(out, it)
	}
	return out, nil
}

// TouchSuppliedItems marks the items as used now.
func (s *Store) TouchSuppliedItems(ctx context.Context, tenantID, conversationID string, itemIDs []string) error {
	return s.update(ctx, tenantID, conversationID, func(rec *record) error {
		now := time.Now()
		for i := range rec.supplied {
			if slices.Contains(itemIDs, rec.supplied[i].ID) {
				rec.supplied[i].LastUsedAt = now
			}
		}
		return nil
	})
}

// DeleteSuppliedItem removes one item.
func (s *Store) DeleteSuppliedItem(ctx context.Context, tenantID, conversationID, itemID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.recordFor(ctx, tenantID, conversationID)
	if errors.Is(err, conversation.ErrNotFound) {
		return conversation.ErrItemNotFound
	}
	if err != nil {
		return err
	}
	id, _ := canonical(itemID)
	before := len(rec.supplied)
	rec.supplied = slices.DeleteFunc(rec.supplied, func(it conversation.SuppliedItem) bool { return it.ID == id })
	if len(rec.supplied) == before {
		return conversation.ErrItemNotFound
	}
	return nil
}
