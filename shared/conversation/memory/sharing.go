package memory

import (
	"context"
	"sync"
	"time"

	"regintel/shared/conversation"
)

// Sharing keeps conversation sharing settings beside a Store, as the
// conversation_sharing table sits beside conversations. An entry whose
// conversation was erased is never returned and is dropped when next seen.
type Sharing struct {
	store *Store
	mu    sync.Mutex
	set   map[key]conversation.Sharing
}

var _ conversation.SharingStore = (*Sharing)(nil)

// NewSharing returns the sharing settings of store's conversations.
func NewSharing(store *Store) *Sharing {
	return &Sharing{store: store, set: map[key]conversation.Sharing{}}
}

// owned returns the conversation's key when it exists in the tenant and
// belongs to the owner in ctx, else ErrNotFound.
func (s *Sharing) owned(ctx context.Context, tenantID, conversationID string) (key, error) {
	k, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return key{}, err
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	if _, ok := s.store.conversations[k]; !ok {
		return key{}, conversation.ErrNotFound
	}
	return k, nil
}

// GetSharing implements conversation.SharingStore.
func (s *Sharing) GetSharing(ctx context.Context, tenantID, conversationID string) (conversation.Sharing, error) {
	if err := ctx.Err(); err != nil {
		return conversation.Sharing{}, err
	}
	k, err := s.owned(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.Sharing{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if got, ok := s.set[k]; ok {
		return got, nil
	}
	return conversation.DefaultSharing, nil
}

// ListSharing implements conversation.SharingStore.
func (s *Sharing) ListSharing(ctx context.Context, tenantID string, ids []string) (map[string]conversation.Sharing, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if _, ok := canonical(tenantID); !ok {
		return nil, conversation.ErrInvalidTenant
	}
	if _, err := conversation.OwnerOf(ctx); err != nil {
		return nil, err
	}
	out := map[string]conversation.Sharing{}
	for _, id := range ids {
		k, err := s.owned(ctx, tenantID, id)
		if err != nil {
			continue
		}
		s.mu.Lock()
		got, ok := s.set[k]
		s.mu.Unlock()
		if ok {
			out[id] = got
		}
	}
	return out, nil
}

// SetSharing implements conversation.SharingStore.
func (s *Sharing) SetSharing(ctx context.Context, tenantID, conversationID string, sh conversation.Sharing) (conversation.Sharing, error) {
	if err := ctx.Err(); err != nil {
		return conversation.Sharing{}, err
	}
	if err := sh.Validate(); err != nil {
		return conversation.Sharing{}, err
	}
	k, err := s.owned(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.Sharing{}, err
	}
	sh.UpdatedAt = time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune()
	s.set[k] = sh
	return sh, nil
}

// prune drops the entries of erased conversations; the caller holds s.mu.
func (s *Sharing) prune() {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	for k := range s.set {
		if _, ok := s.store.conversations[k]; !ok {
			delete(s.set, k)
		}
	}
}
