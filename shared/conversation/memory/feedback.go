package memory

import (
	"context"
	"maps"
	"slices"
	"time"

	"regintel/shared/conversation"
)

// SetTurnFeedback implements conversation.Admin.
func (s *Store) SetTurnFeedback(ctx context.Context, tenantID, conversationID string, f conversation.Feedback) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := f.Validate()
	if err != nil {
		return err
	}
	return s.update(ctx, tenantID, conversationID, func(r *record) error {
		if !slices.ContainsFunc(r.turns, func(t conversation.Turn) bool { return t.Number == f.TurnNumber }) {
			return conversation.ErrTurnNotFound
		}
		if r.feedback == nil {
			r.feedback = map[int]conversation.Feedback{}
		}
		// Postgres keeps microseconds.
		f.CreatedAt = time.Now().UTC().Truncate(time.Microsecond)
		r.feedback[f.TurnNumber] = f
		return nil
	})
}

// sortedFeedback is the record's feedback by turn number, never nil.
func sortedFeedback(byTurn map[int]conversation.Feedback) []conversation.Feedback {
	out := make([]conversation.Feedback, 0, len(byTurn))
	for _, n := range slices.Sorted(maps.Keys(byTurn)) {
		out = append(out, byTurn[n])
	}
	return out
}
