package memory

import (
	"context"
	"time"

	"regintel/shared/conversation"
)

var _ conversation.StreamFollowers = (*Store)(nil)

// FollowStream renews or takes a follower's place while fewer than max
// unlapsed places are held.
func (s *Store) FollowStream(ctx context.Context, tenantID, conversationID, place string, max int, lease time.Duration) error {
	return s.update(ctx, tenantID, conversationID, func(r *record) error {
		now := time.Now()
		for p, until := range r.followers {
			if !now.Before(until) {
				delete(r.followers, p)
			}
		}
		if _, held := r.followers[place]; !held && len(r.followers) >= max {
			return conversation.ErrTooManyFollowers
		}
		if r.followers == nil {
			r.followers = map[string]time.Time{}
		}
		r.followers[place] = now.Add(lease)
		return nil
	})
}

// UnfollowStream gives the place back.
func (s *Store) UnfollowStream(ctx context.Context, tenantID, conversationID, place string) error {
	return s.update(ctx, tenantID, conversationID, func(r *record) error {
		delete(r.followers, place)
		return nil
	})
}
