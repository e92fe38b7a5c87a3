package httpapi

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"unicode/utf8"

	"regintel/shared/conversation"
	"regintel/shared/httpapi/reply"
	"regintel/shared/pii"
)

// feedbackBody is the body of POST /conversations/{id}/turns/{n}/feedback.
type feedbackBody struct {
	Rating  *string `json:"rating"`
	Comment *string `json:"comment"`
}

// setTurnFeedback serves POST /conversations/{id}/turns/{n}/feedback with
// {"rating": "up"|"down", "comment"?: string}: the caller's thumbs up or
// down on one answer, replacing any earlier one on it. The comment is
// stored redacted, as a question is.
func (a *API) setTurnFeedback(w http.ResponseWriter, r *http.Request) error {
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 || n > math.MaxInt32 || strconv.Itoa(n) != r.PathValue("n") {
		return reply.InvalidRequest.With("the turn number must be a whole number from 1 to 2147483647")
	}
	var body feedbackBody
	if err := a.decodeJSON(w, r, &body); err != nil {
		return err
	}
	if body.Rating == nil {
		return reply.InvalidRequest.With(`rating is required: "up" or "down"`)
	}
	f := conversation.Feedback{TurnNumber: n, Rating: conversation.Rating(*body.Rating)}
	if body.Comment != nil {
		f.Comment = *body.Comment
	}
	// The limit is on the comment as sent; redaction may lengthen it.
	f, err = f.Validate()
	if err != nil {
		return err
	}
	f.Comment = cutToRunes(a.storedText(f.Comment), conversation.MaxFeedbackCommentRunes)
	if err := a.conversations.SetTurnFeedback(r.Context(), caller(r).TenantID, r.PathValue("id"), f); err != nil {
		return fmt.Errorf("set turn feedback: %w", err)
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// storedText is a client's free text as it may be stored: under the
// engine's PII mode, or redacted when no engine is configured.
func (a *API) storedText(text string) string {
	if a.engine != nil {
		return a.engine.StoredText(text)
	}
	out, _ := pii.Redact(text)
	return out
}

// cutToRunes keeps the first max runes of s.
func cutToRunes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	runes := []rune(s)
	return string(runes[:max])
}
