package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"regintel/shared/conversation"
)

// A client may name a conversation with its own id (the AI SDK's chat id):
// the same id continues it, a new one starts it. Conversation ids are
// unique across tenants, so the id cannot always be the conversation's:
// a UUID that is free becomes the conversation's id; any other id, or a
// UUID already in use elsewhere, maps to an id derived from the caller's
// tenant, user and the client's id, which no other caller can reach. So
// whether an id exists elsewhere changes no status, no stream and no
// stored row of the caller; only the conversationId the stream names
// tells a taken UUID from a free one.

// MaxChatIDLength bounds a client's chat id.
const MaxChatIDLength = 128

// chatIDNamespace derives the conversation id of a client's chat id.
var chatIDNamespace = uuid.MustParse("0b7f3c1e-5d2a-4e8f-9c61-2a9d4f7e8b35")

func validateChatID(id string) error {
	switch {
	case id == "":
		return nil
	case len(id) > MaxChatIDLength:
		return fmt.Errorf("%w: id is longer than %d characters", ErrInvalid, MaxChatIDLength)
	case strings.ContainsFunc(id, func(r rune) bool { return r < 0x21 || r == 0x7f }):
		return fmt.Errorf("%w: id must not contain spaces or control characters", ErrInvalid)
	}
	return nil
}

// ChatConversationIDs are the conversation ids a caller's chat id may
// name, in the order they are tried: the id itself when it is a UUID, then
// the one derived for this caller.
func ChatConversationIDs(tenantID, userID, chatID string) []string {
	derived := uuid.NewSHA1(chatIDNamespace, []byte(tenantID+"\x00"+userID+"\x00"+chatID)).String()
	if u, err := uuid.Parse(chatID); err == nil && len(chatID) == 36 {
		return []string{u.String(), derived}
	}
	return []string{derived}
}

// loadOrCreate starts the turn of the caller's conversation the chat id
// names, or creates it (not for a retry, which needs a stored turn).
func (t *Turn) loadOrCreate(ctx context.Context) error {
	ids := ChatConversationIDs(t.req.TenantID, t.req.UserID, t.req.ChatID)
	for _, id := range ids {
		t.req.ConversationID = id
		if err := t.load(ctx); !errors.Is(err, conversation.ErrNotFound) {
			return err
		}
	}
	if t.req.Retry {
		return conversation.ErrNotFound
	}
	for _, id := range ids {
		t.req.ConversationID = ""
		err := t.createAs(ctx, id)
		if !errors.Is(err, conversation.ErrIDTaken) {
			return err
		}
		// Taken: by this caller's own request a moment ago, or elsewhere.
		t.req.ConversationID = id
		if err := t.load(ctx); !errors.Is(err, conversation.ErrNotFound) {
			return err
		}
	}
	return errors.New("start conversation: every id of the chat is taken")
}
