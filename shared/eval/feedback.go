package eval

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgxpool"

	"regintel/shared/auth"
)

// Tenant is the tenant the eval asks as; its turns are the eval's own,
// not users', so the feedback counts leave them out.
const Tenant = "eval"

// Feedback is the users' thumbs up and down on stored answers: a quality
// signal from real use, beside the answer key's scores. Shares are 0 when
// nothing is counted.
type Feedback struct {
	// Store is where the counts come from: "postgres", or "" when the run
	// has no store that outlives it.
	Store string `json:"store"`
	// Turns is the users' answered turns (any status but streaming).
	Turns int64 `json:"turns"`
	Up    int64 `json:"up"`
	Down  int64 `json:"down"`
	// UpShare is Up over the rated turns (Up + Down).
	UpShare float64 `json:"upShare"`
	// RatedShare is the rated turns over Turns.
	RatedShare float64 `json:"ratedShare"`
	// Unread says why the store's feedback was not counted, when it was
	// not.
	Unread string `json:"unread,omitempty"`
}

// ErrFeedbackHidden: the signed-in role is held to row-level security, so
// it would count no tenant's rows and report zeros that mean nothing.
var ErrFeedbackHidden = errors.New("the database role is held to row-level security and sees no tenant's turns; " +
	"run with a DATABASE_URL whose role bypasses it (the master user)")

const countFeedback = `
SELECT (SELECT count(*) FROM conversation_turns WHERE status <> 'streaming' AND tenant_id <> $1::uuid),
       count(*) FILTER (WHERE rating = 'up'),
       count(*) FILTER (WHERE rating = 'down')
FROM turn_feedback
WHERE tenant_id <> $1::uuid`

// ReadFeedback counts every tenant's feedback in Postgres but the eval's
// own. The role must see every tenant's rows (a superuser or one with
// BYPASSRLS), else ErrFeedbackHidden.
func ReadFeedback(ctx context.Context, pool *pgxpool.Pool) (Feedback, error) {
	var seesAll bool
	if err := pool.QueryRow(ctx, `SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user`).Scan(&seesAll); err != nil {
		return Feedback{}, fmt.Errorf("feedback: check role: %w", err)
	}
	if !seesAll {
		return Feedback{}, ErrFeedbackHidden
	}
	f := Feedback{Store: "postgres"}
	if err := pool.QueryRow(ctx, countFeedback, auth.TenantUUID(Tenant)).Scan(&f.Turns, &f.Up, &f.Down); err != nil {
		return Feedback{}, fmt.Errorf("feedback: count: %w", err)
	}
	if rated := f.Up + f.Down; rated > 0 {
		f.UpShare = float64(f.Up) / float64(rated)
		if f.Turns > 0 {
			f.RatedShare = float64(rated) / float64(f.Turns)
		}
	}
	return f, nil
}

// WriteFeedback prints the feedback section of the report.
func WriteFeedback(w io.Writer, f Feedback) error {
	if f.Store == "" {
		_, err := fmt.Fprintln(w, "feedback: no store (DATABASE_URL is unset: the memory store keeps no users' turns)")
		return err
	}
	if f.Unread != "" {
		_, err := fmt.Fprintf(w, "feedback (%s): not counted: %s\n", f.Store, f.Unread)
		return err
	}
	_, err := fmt.Fprintf(w, "feedback (users' thumbs on stored answers, %s): up %d, down %d, up share %.3f; rated %d of %d turns (%.3f)\n",
		f.Store, f.Up, f.Down, f.UpShare, f.Up+f.Down, f.Turns, f.RatedShare)
	return err
}
