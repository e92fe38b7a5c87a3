package httpapi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"regintel/shared/auth"
	"regintel/shared/chat"
	"regintel/shared/conversation"
	"regintel/shared/httpapi/reply"
)

// A turn's stream is recorded as it is written (chat.StreamRecorded), so
// GET /chat/{conversationId}/stream can send a running turn's stream from
// any instance: from its first event (or after Last-Event-ID), then what
// the store gains until the turn's done event. DELETE on the same path
// asks the running turn to stop.

// ResumePollEvery is how often a resumed stream reads the turn's new
// events from the store.
var ResumePollEvery = 100 * time.Millisecond

// resumeGrace is how long a resumed stream waits for the done event of a
// turn that no longer runs, before it ends without one (the turn's
// process ended mid-answer).
const resumeGrace = 2 * time.Second

// DefaultMaxStreamFollowers is how many clients may follow one
// conversation's stream at once (RESUME_MAX_FOLLOWERS).
const DefaultMaxStreamFollowers = 8

// followerLease is how long a follower's place holds without renewal; a
// follower renews it every followerLease/3 while it follows, so the place
// of one whose process died lapses within a lease.
const followerLease = 30 * time.Second

// placeCallTimeout bounds renewing and giving back a follower's place,
// which run after the request's own context may be gone.
const placeCallTimeout = 5 * time.Second

// streamEventID is the SSE id of a recorded event: its turn and place.
func streamEventID(turn, seq int) string {
	return strconv.Itoa(turn) + ":" + strconv.Itoa(seq)
}

// StreamEventIDPattern is the form of a stream event's id (TURN:SEQ), as
// the API document states it for Last-Event-ID.
const StreamEventIDPattern = `^[0-9]{1,10}:[0-9]{1,10}$`

var streamEventIDForm = regexp.MustCompile(StreamEventIDPattern)

// parseStreamEventID reads an id of StreamEventIDPattern's form; ok is
// false for any other. Any such id is a resume point: turn numbers and
// places are stored as integer columns, so a turn beyond their range is
// none of ours (turn -1: the running turn from its start) and a place
// beyond it is after every event.
func parseStreamEventID(id string) (turn, seq int, ok bool) {
	if !streamEventIDForm.MatchString(id) {
		return 0, 0, false
	}
	turns, places, _ := strings.Cut(id, ":")
	t, err1 := strconv.ParseInt(turns, 10, 64)
	s, err2 := strconv.ParseInt(places, 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	if t < 1 || t > math.MaxInt32 {
		t = -1
	}
	return int(t), int(min(s, math.MaxInt32)), true
}

// resumeStream serves GET /chat/{conversationId}/stream: 204 when no turn
// of the caller's runs under the id (none of theirs has it yet, or it is
// another caller's), else its stream.
func (a *API) resumeStream(w http.ResponseWriter, r *http.Request) error {
	streams, c, id := a.engine.Streams(), caller(r), r.PathValue("conversationId")
	startIndex, ok := parseStartIndex(r)
	if !ok {
		return reply.InvalidRequest.With("startIndex must be a whole number of chunks, 0 or more")
	}
	turn, after, err := lastEventOf(r)
	if err != nil {
		return err
	}
	var ts conversation.TurnStream
	id, err = forChatID(c, id, func(conv string) (err error) {
		ts, err = streams.ReadStream(r.Context(), c.TenantID, conv, after)
		return err
	})
	if err == nil && turn != 0 && ts.TurnNumber != turn {
		// The client's last event is of an earlier turn: this one from its start.
		after = -1
		ts, err = streams.ReadStream(r.Context(), c.TenantID, id, after)
	}
	if err == nil && ts.Running && ts.Format == "" {
		ts, err = waitRecorded(r.Context(), streams, c.TenantID, id, after)
	}
	if errors.Is(err, conversation.ErrNotFound) {
		// An id the caller has not used yet (useChat asks on mount, before
		// the first message) or another caller's: nothing of theirs runs.
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the turn's stream: %w", err)
	}
	if !protocolAsked(r) && ts.Format == UIMessageStreamProtocol {
		chooseUIMessageStream(r)
	}
	if !ts.Running && (after < 0 || len(ts.Events) == 0) {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	place, err := a.takeFollowerPlace(r.Context(), c.TenantID, id)
	if err != nil {
		return err
	}
	defer place.leave()
	w.Header().Set(HeaderConversationID, id)
	ctx, cancel := a.streamContext(r.Context())
	defer cancel()
	sse := newSSEWriter(w)
	sink := newTurnSink(w, r, sse, ts.TurnNumber)
	if ui, ok := sink.(*uiStreamSink); ok {
		ui.skip = startIndex
	}
	sse.start()
	stop := sse.keepAlive(ctx, a.keepAlive)
	defer stop()
	a.follow(ctx, streamFollower{streams: streams, tenant: c.TenantID, id: id, place: place}, ts, after, sink)
	return nil
}

// followerPlace is a resumed stream's place among its conversation's
// followers (nil on a store that keeps none).
type followerPlace struct {
	a         *API
	followers conversation.StreamFollowers
	ctx       context.Context
	tenant    string
	id        string
	place     string
	renewed   time.Time
}

// takeFollowerPlace takes a place among the conversation's followers: a
// 429 when they are as many as they may be.
func (a *API) takeFollowerPlace(ctx context.Context, tenant, id string) (*followerPlace, error) {
	followers, ok := a.engine.Streams().(conversation.StreamFollowers)
	if !ok {
		return nil, nil
	}
	p := &followerPlace{a: a, followers: followers, ctx: context.WithoutCancel(ctx), tenant: tenant, id: id,
		place: uuid.NewString(), renewed: time.Now()}
	err := followers.FollowStream(ctx, tenant, id, p.place, a.maxFollowers, followerLease)
	switch {
	case errors.Is(err, conversation.ErrTooManyFollowers):
		a.log.Warn("resumed stream refused: the conversation has as many followers as it may", "max", a.maxFollowers)
		return nil, reply.TooManyFollowers
	case err != nil:
		return nil, fmt.Errorf("take a follower's place: %w", err)
	}
	return p, nil
}

// renew keeps the place while the stream is followed.
func (p *followerPlace) renew() {
	if p == nil || time.Since(p.renewed) < followerLease/3 {
		return
	}
	p.renewed = time.Now()
	ctx, cancel := context.WithTimeout(p.ctx, placeCallTimeout)
	defer cancel()
	if err := p.followers.FollowStream(ctx, p.tenant, p.id, p.place, p.a.maxFollowers, followerLease); err != nil {
		p.a.log.Warn("resumed stream: renewing the follower's place failed; it lapses with its lease", "err", err)
	}
}

// leave gives the place back.
func (p *followerPlace) leave() {
	if p == nil {
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, placeCallTimeout)
	defer cancel()
	if err := p.followers.UnfollowStream(ctx, p.tenant, p.id, p.place); err != nil {
		p.a.log.Warn("resumed stream: giving the follower's place back failed; it lapses with its lease", "err", err)
	}
}

// lastEventOf reads the SSE client's Last-Event-ID: the turn and place
// it names, or none (0, -1).
func lastEventOf(r *http.Request) (turn, after int, err error) {
	last := r.Header.Get(HeaderLastEventID)
	if last == "" {
		return 0, -1, nil
	}
	turn, after, ok := parseStreamEventID(last)
	if !ok {
		return 0, -1, reply.InvalidRequest.With("Last-Event-ID must be an event id of this stream (TURN:SEQ)")
	}
	if wantsUIMessageStream(r) {
		// Checked whatever the protocol; the UI message stream resumes by
		// startIndex instead.
		return 0, -1, nil
	}
	return turn, after, nil
}

// waitRecorded waits, a few polls at most, for a running turn's first
// write, which names the format its client asked for: a reconnect right
// after the turn started gets the same format.
func waitRecorded(ctx context.Context, streams conversation.Streams, tenant, id string, after int) (conversation.TurnStream, error) {
	var ts conversation.TurnStream
	for range 10 {
		select {
		case <-ctx.Done():
			return ts, ctx.Err()
		case <-time.After(ResumePollEvery / 4):
		}
		var err error
		if ts, err = streams.ReadStream(ctx, tenant, id, after); err != nil || !ts.Running || ts.Format != "" {
			return ts, err
		}
	}
	return ts, nil
}

// parseStartIndex reads the WorkflowChatTransport's startIndex: how many
// chunks of the UI message stream the client already has (0: none).
func parseStartIndex(r *http.Request) (int, bool) {
	if !r.URL.Query().Has("startIndex") {
		return 0, true
	}
	n, err := strconv.Atoi(r.URL.Query().Get("startIndex"))
	return n, err == nil && n >= 0 && n <= math.MaxInt32
}

// streamFollower reads one conversation's recorded stream, holding its
// place among the followers.
type streamFollower struct {
	streams conversation.Streams
	tenant  string
	id      string
	place   *followerPlace
}

// follow sends ts's events (those after last), then polls for more until
// the done event, a newer turn, the client's leaving, or a turn that
// stopped running without one.
func (a *API) follow(ctx context.Context, f streamFollower, ts conversation.TurnStream, last int, sink turnSink) {
	quietSince := time.Now()
	for {
		for _, ev := range ts.Events {
			if sink.Recorded(ev) != nil {
				return
			}
			last = ev.Seq
			if ev.Name == "done" {
				_ = sink.Flush()
				return
			}
		}
		if sink.Flush() != nil {
			return
		}
		if ts.Running || len(ts.Events) > 0 {
			quietSince = time.Now()
		} else if time.Since(quietSince) > resumeGrace {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(ResumePollEvery):
		}
		f.place.renew()
		next, err := f.streams.ReadStream(ctx, f.tenant, f.id, last)
		if err != nil {
			a.log.Warn("resumed stream: read failed; ending it", "err", err)
			return
		}
		if next.TurnNumber != ts.TurnNumber {
			return
		}
		ts = next
	}
}

// stopStream serves DELETE /chat/{conversationId}/stream: the running turn
// is asked to stop (202); it notices at its next write, stores its partial
// answer as interrupted and ends its stream. 204 when none is running.
func (a *API) stopStream(w http.ResponseWriter, r *http.Request) error {
	c, stopping := caller(r), false
	id, err := forChatID(c, r.PathValue("conversationId"), func(conv string) (err error) {
		stopping, err = a.engine.Streams().StopStream(r.Context(), c.TenantID, conv)
		return err
	})
	if errors.Is(err, conversation.ErrNotFound) {
		w.WriteHeader(http.StatusNoContent) // nothing of the caller's runs under this id
		return nil
	}
	if err != nil {
		return fmt.Errorf("stop the turn's stream: %w", err)
	}
	if !stopping {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"conversationId": id, "stopping": true})
	return nil
}

// forChatID calls call with each conversation id the path's id may name
// (a conversation's id, or the client's chat id: chat.ChatConversationIDs)
// until one is the caller's, and returns that one.
func forChatID(c auth.Caller, id string, call func(conversationID string) error) (string, error) {
	err := conversation.ErrNotFound
	for _, conv := range chat.ChatConversationIDs(c.TenantID, c.UserID, id) {
		if err = call(conv); !errors.Is(err, conversation.ErrNotFound) {
			return conv, err
		}
	}
	return id, err
}
