package compat

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"time"

	"regintel/shared/httpapi/reply"
)

// StreamConversations serves GET /api/conversations/stream?status=: a
// snapshot of the caller's conversations with that status, then upsert
// for each conversation created or changed (the client files it by its
// archivedAt) and deleted for each one erased. It polls the store; the
// host ends the stream before its time is up and the client reconnects.
func (a *Adapter) StreamConversations(w http.ResponseWriter, r *http.Request) error {
	status, filter, ok := queryStatus(r)
	if !ok {
		return reply.InvalidRequest.With("status must be active, archived or all")
	}
	c := a.d.Host.Caller(r)
	// Read once before the 200, so a failing store is an error response.
	seen, err := a.list(r.Context(), c, nil)
	if err != nil {
		return fmt.Errorf("stream conversations: %w", err)
	}
	stream, closeStream := a.d.Host.OpenStream(w, r)
	defer closeStream()
	snapshot := []Conversation{}
	for _, conv := range seen {
		if filter == nil || (conv.ArchivedAt != nil) == *filter {
			snapshot = append(snapshot, conv)
		}
	}
	if send(stream, "snapshot", map[string]any{"status": status, "conversations": snapshot}) != nil {
		return nil
	}
	ctx := stream.Context()
	tick := time.NewTicker(a.d.PollInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		now, err := a.list(ctx, c, nil)
		if err != nil {
			if ctx.Err() == nil {
				a.d.Log.Warn("conversation list stream: read failed; retrying", "request_id", a.d.Host.RequestID(ctx), "err", err)
			}
			continue
		}
		if sendChanges(stream, seen, now) != nil {
			return nil
		}
		seen = now
	}
}

// sendChanges sends upsert for each conversation of now that is new or
// differs from before, and deleted for each of before that is gone.
func sendChanges(s Stream, before, now []Conversation) error {
	old := make(map[string]Conversation, len(before))
	for _, conv := range before {
		old[conv.ID] = conv
	}
	for _, conv := range now {
		prev, ok := old[conv.ID]
		delete(old, conv.ID)
		if ok && reflect.DeepEqual(prev, conv) {
			continue
		}
		if err := send(s, "upsert", map[string]any{"conversation": conv}); err != nil {
			return err
		}
	}
	for _, conv := range before {
		if _, gone := old[conv.ID]; gone {
			if err := send(s, "deleted", map[string]any{"conversationId": conv.ID}); err != nil {
				return err
			}
		}
	}
	return nil
}

func send(s Stream, event string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.Send("", event, data)
}
