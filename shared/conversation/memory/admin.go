package memory

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"regintel/shared/conversation"
)

// ListConversations implements conversation.Admin with the Postgres store's
// order: updated_at descending, then id descending.
func (s *Store) ListConversations(ctx context.Context, tenantID string, q conversation.ListQuery) (conversation.Page, error) {
	if err := ctx.Err(); err != nil {
		return conversation.Page{}, err
	}
	tenant, ok := canonical(tenantID)
	if !ok {
		return conversation.Page{}, conversation.ErrInvalidTenant
	}
	owner, err := conversation.OwnerOf(ctx)
	if err != nil {
		return conversation.Page{}, err
	}
	var after *conversation.Cursor
	if q.Cursor != "" {
		cur, err := conversation.ParseCursor(q.Cursor)
		if err != nil {
			return conversation.Page{}, conversation.ErrInvalidCursor
		}
		if cur.ID, ok = canonical(cur.ID); !ok {
			return conversation.Page{}, conversation.ErrInvalidCursor
		}
		after = &cur
	}

	var words []string
	if q.Search != "" {
		if words, err = conversation.SearchWords(q.Search); err != nil {
			return conversation.Page{}, err
		}
	}

	s.mu.Lock()
	var matching []conversation.Conversation
	for k, r := range s.conversations {
		c := r.conversation
		if k.tenantID != tenant || k.ownerID != owner ||
			(q.Archived != nil && c.Archived != *q.Archived) ||
			(after != nil && !newerFirstBefore(*after, c)) ||
			!r.holdsEvery(words) {
			continue
		}
		matching = append(matching, copyConversation(c))
	}
	s.mu.Unlock()

	slices.SortFunc(matching, func(a, b conversation.Conversation) int {
		return -cmp.Or(a.UpdatedAt.Compare(b.UpdatedAt), strings.Compare(a.ID, b.ID))
	})
	page := conversation.Page{Conversations: matching}
	if size := q.PageSize(); len(matching) > size {
		page.Conversations = matching[:size]
		page.NextCursor = conversation.CursorAfter(matching[size-1]).Encode()
	}
	if page.Conversations == nil {
		page.Conversations = []conversation.Conversation{}
	}
	return page, nil
}

// holdsEvery reports whether each word appears, ignoring case, in the
// title or in some turn's question or answer (Postgres: ILIKE).
func (r *record) holdsEvery(words []string) bool {
	for _, w := range words {
		w = strings.ToLower(w)
		found := strings.Contains(strings.ToLower(r.conversation.Title), w)
		for _, t := range r.turns {
			if found {
				break
			}
			found = strings.Contains(strings.ToLower(t.UserText), w) || strings.Contains(strings.ToLower(t.AssistantText), w)
		}
		if !found {
			return false
		}
	}
	return true
}

// newerFirstBefore reports whether c sorts after the cursor position in
// newest-first order, i.e. (c.UpdatedAt, c.ID) < (cursor.UpdatedAt, cursor.ID).
func newerFirstBefore(cursor conversation.Cursor, c conversation.Conversation) bool {
	if !c.UpdatedAt.Equal(cursor.UpdatedAt) {
		return c.UpdatedAt.Before(cursor.UpdatedAt)
	}
	return c.ID < cursor.ID
}

// GetConversation implements conversation.Admin.
func (s *Store) GetConversation(ctx context.Context, tenantID, conversationID string) (conversation.Detail, error) {
	if err := ctx.Err(); err != nil {
		return conversation.Detail{}, err
	}
	held, err := s.ExportConversation(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.Detail{}, err
	}
	d := conversation.Detail{
		Conversation:    held.Conversation,
		Turns:           held.Turns,
		ActiveNodeIDs:   []string{},
		PendingRequests: []conversation.ContextRequest{},
		SuppliedItems:   held.SuppliedItems,
	}
	now := time.Now()
	for _, r := range held.ContextRequests {
		if r.Status == conversation.RequestPending && !r.Expired(now) {
			d.PendingRequests = append(d.PendingRequests, r)
		}
	}
	if held.Context != nil {
		var c conversation.Context
		if err := json.Unmarshal(held.Context.Data, &c); err == nil && c.ActiveNodeIDs != nil {
			d.ActiveNodeIDs = c.ActiveNodeIDs
		}
	}
	return d, nil
}

// UpdateConversation implements conversation.Admin.
func (s *Store) UpdateConversation(ctx context.Context, tenantID, conversationID string, u conversation.Update) (conversation.Conversation, error) {
	if err := ctx.Err(); err != nil {
		return conversation.Conversation{}, err
	}
	k, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.Conversation{}, err
	}
	if u, err = u.Validate(); err != nil {
		return conversation.Conversation{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.conversations[k]
	if !ok {
		return conversation.Conversation{}, conversation.ErrNotFound
	}
	if u.Title != nil {
		r.conversation.Title = *u.Title
	}
	if u.Archived != nil {
		r.conversation.Archived = *u.Archived
	}
	if u.Profile != nil {
		r.conversation.Profile = storedProfile(u.Profile)
	}
	return copyConversation(r.conversation), nil
}

// DeleteConversation implements conversation.Admin; the record holds every
// row of the conversation, so removing it under the mutex erases them at once.
func (s *Store) DeleteConversation(ctx context.Context, tenantID, conversationID string) (conversation.Erased, error) {
	if err := ctx.Err(); err != nil {
		return conversation.Erased{}, err
	}
	k, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.Erased{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.conversations[k]
	if !ok {
		return conversation.Erased{}, conversation.ErrNotFound
	}
	delete(s.conversations, k)
	erased := conversation.Erased{Conversations: 1, Turns: int64(len(r.turns)),
		ContextRequests: int64(len(r.requests)), SuppliedItems: int64(len(r.supplied)), Feedback: int64(len(r.feedback))}
	if r.context != nil {
		erased.Contexts = 1
	}
	return erased, nil
}

// ExportConversation implements conversation.Admin.
func (s *Store) ExportConversation(ctx context.Context, tenantID, conversationID string) (conversation.Export, error) {
	if err := ctx.Err(); err != nil {
		return conversation.Export{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.recordFor(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.Export{}, err
	}
	out := conversation.Export{
		TenantID:        tenantID,
		Conversation:    copyConversation(r.conversation),
		Turns:           make([]conversation.Turn, 0, len(r.turns)),
		ContextRequests: make([]conversation.ContextRequest, 0, len(r.requests)),
		SuppliedItems:   make([]conversation.SuppliedItem, 0, len(r.supplied)),
		Feedback:        sortedFeedback(r.feedback),
	}
	for _, t := range r.turns {
		out.Turns = append(out.Turns, copyTurn(t))
	}
	for _, req := range r.requests {
		out.ContextRequests = append(out.ContextRequests, copyRequest(req))
	}
	// Supplied items hold only strings, times and a bool: a copy is a copy.
	out.SuppliedItems = append(out.SuppliedItems, r.supplied...)
	if r.stream != nil {
		out.RecordedStream = &conversation.RecordedStream{TurnNumber: r.stream.turn, Format: r.stream.format,
			StopRequested: r.stream.stop, Events: append([]conversation.StreamEvent{}, r.stream.events...)}
	}
	if r.context != nil {
		data, err := json.Marshal(r.context)
		if err != nil {
			return conversation.Export{}, err
		}
		out.Context = &conversation.StoredContext{Data: data}
	}
	return out, nil
}
