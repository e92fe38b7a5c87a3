package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"regintel/shared/conversation"
)

// setTurnFeedback stores the feedback on a turn of an owned conversation,
// replacing any earlier one, and says whether the conversation and the
// turn were found, in one statement.
const setTurnFeedback = `
WITH owned AS (
    SELECT c.tenant_id, c.id FROM conversations c
    WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND ` + ownedConversation + `
),
stored AS (
    INSERT INTO turn_feedback (tenant_id, conversation_id, turn_number, rating, comment)
    SELECT t.tenant_id, t.conversation_id, t.turn_number, $4::text, $5::text
    FROM conversation_turns t JOIN owned ON t.tenant_id = owned.tenant_id AND t.conversation_id = owned.id
    WHERE t.turn_number = $3::integer
    ON CONFLICT (tenant_id, conversation_id, turn_number)
    DO UPDATE SET rating = EXCLUDED.rating, comment = EXCLUDED.comment, created_at = now()
    RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM owned), EXISTS (SELECT 1 FROM stored)`

// SetTurnFeedback implements conversation.Admin.
func (s *Store) SetTurnFeedback(ctx context.Context, tenantID, conversationID string, f conversation.Feedback) error {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return err
	}
	if f, err = f.Validate(); err != nil {
		return err
	}
	var found, stored bool
	if err := sc.queryRow(ctx, s.pool, setTurnFeedback, tenantID, conversationID, f.TurnNumber, string(f.Rating), f.Comment).
		Scan(&found, &stored); err != nil {
		return fmt.Errorf("set turn feedback: %w", err)
	}
	switch {
	case !found:
		return conversation.ErrNotFound
	case !stored:
		return conversation.ErrTurnNotFound
	}
	return nil
}

const selectFeedback = `
SELECT turn_number, rating, comment, created_at
FROM turn_feedback
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid` + ofOwnedConversation + `
ORDER BY turn_number`

// scanHeldFeedback reads the batch's feedback rows.
func scanHeldFeedback(results pgx.BatchResults) ([]conversation.Feedback, error) {
	rows, err := results.Query()
	if err != nil {
		return nil, fmt.Errorf("read feedback: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (conversation.Feedback, error) {
		var f conversation.Feedback
		err := row.Scan(&f.TurnNumber, &f.Rating, &f.Comment, &f.CreatedAt)
		return f, err
	})
	if err != nil {
		return nil, fmt.Errorf("read feedback: %w", err)
	}
	if out == nil {
		out = []conversation.Feedback{}
	}
	return out, nil
}
