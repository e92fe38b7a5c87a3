package conversation

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Rating is a user's verdict on one answer.
type Rating string

// Ratings.
const (
	RatingUp   Rating = "up"
	RatingDown Rating = "down"
)

// MaxFeedbackCommentRunes bounds a feedback comment as sent.
const MaxFeedbackCommentRunes = 1000

// Feedback is a user's thumbs up or down on one turn's answer, with an
// optional comment (stored redacted, like other free text). A turn holds
// at most one: a later one replaces it.
type Feedback struct {
	TurnNumber int       `json:"turnNumber"`
	Rating     Rating    `json:"rating"`
	Comment    string    `json:"comment"`
	CreatedAt  time.Time `json:"createdAt"`
}

// ErrTurnNotFound is returned for a turn number the caller's conversation
// does not have.
var ErrTurnNotFound = errors.New("turn not found")

// ErrInvalidFeedback wraps the reason a Feedback is refused.
var ErrInvalidFeedback = errors.New("invalid feedback")

// Validate checks f and returns it with the comment trimmed.
func (f Feedback) Validate() (Feedback, error) {
	if f.Rating != RatingUp && f.Rating != RatingDown {
		return f, errors.Join(ErrInvalidFeedback, fmt.Errorf("rating must be %q or %q", RatingUp, RatingDown))
	}
	if f.TurnNumber < 1 {
		return f, errors.Join(ErrInvalidFeedback, errors.New("turn numbers start at 1"))
	}
	if utf8.RuneCountInString(f.Comment) > MaxFeedbackCommentRunes {
		return f, errors.Join(ErrInvalidFeedback, fmt.Errorf("comment is longer than %d characters", MaxFeedbackCommentRunes))
	}
	f.Comment = strings.TrimSpace(f.Comment)
	return f, nil
}
