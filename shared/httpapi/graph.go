package httpapi

// The graph routes: GET /graph/changes streams the graph's changes as
// graph_patch events, computed from updated_at, for the graph UI; GET
// /graph/nodes looks nodes up by id.
//
// A stream starts with a snapshot (every node and edge, as "added", in
// bounded patches) or, when the client sends Last-Event-ID, right after the
// patch with that id. Each patch's id is the cursor of its last item, so a
// client that reconnects with it misses nothing and receives nothing twice.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"regintel/shared/graph"
	"regintel/shared/httpapi/reply"
)

// FeedConfig tunes the graph change feed; zero values mean the defaults.
type FeedConfig struct {
	// PollInterval is how often the graph is asked for changes (default 2s).
	PollInterval time.Duration
	// MaxPatchItems bounds the nodes plus edges of one patch (default 200).
	// More changes go in the next patch, sent at once.
	MaxPatchItems int
	// SettleDelay holds back changes younger than this (default 2s): writes
	// stamp updated_at before they commit, so a slower transaction can
	// commit an older timestamp after a faster one; waiting lets it land
	// before the cursor passes its timestamp. Negative: none (tests).
	SettleDelay time.Duration
	// MaxStreamDuration ends a stream so the client reconnects with its
	// Last-Event-ID (default 10 minutes, under Lambda's 15-minute limit;
	// negative: none).
	MaxStreamDuration time.Duration
	// MaxLookupIDs caps the ids of one GET /graph/nodes (default 100).
	MaxLookupIDs int
}

// streamEndMargin is how long before the request's deadline a stream ends.
const streamEndMargin = 5 * time.Second

func (c FeedConfig) withDefaults() FeedConfig {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.PollInterval, 2*time.Second)
	def(&c.SettleDelay, 2*time.Second)
	def(&c.MaxStreamDuration, 10*time.Minute)
	if c.MaxPatchItems <= 0 {
		c.MaxPatchItems = 200
	}
	if c.MaxLookupIDs <= 0 {
		c.MaxLookupIDs = 100
	}
	return c
}

// Patch is one SSE event of the feed.
type Patch struct {
	Type  string      `json:"type"` // always "graph_patch"
	Nodes NodeChanges `json:"nodes"`
	Edges EdgeChanges `json:"edges"`
	Meta  PatchMeta   `json:"meta"`
}

// NodeChanges groups a patch's nodes. Removed is always empty today: the
// write service never deletes; it is part of the format for when it does.
type NodeChanges struct {
	Added   []graph.Node `json:"added"`
	Updated []graph.Node `json:"updated"`
	Removed []string     `json:"removed"`
}

// EdgeChanges groups a patch's edges.
type EdgeChanges struct {
	Added   []EdgeView `json:"added"`
	Updated []EdgeView `json:"updated"`
	Removed []string   `json:"removed"`
}

// EdgeView is an edge in a patch; ID is stable (source, type, target).
type EdgeView struct {
	ID string `json:"id"`
	graph.Edge
}

// PatchMeta says where the patch sits in the stream.
type PatchMeta struct {
	Cursor   string `json:"cursor"`   // also the SSE id
	Snapshot bool   `json:"snapshot"` // part of the initial snapshot
	// HasMore: further changes were already pending and follow at once.
	HasMore     bool      `json:"hasMore"`
	Count       int       `json:"count"`
	GeneratedAt time.Time `json:"generatedAt"`
}

// ChangeCursorPattern is the form of a change feed cursor, as the API
// document states it: MILLISECONDS.KEY, the key in unpadded base64url.
// Any cursor of this form is a position in the feed (the public rules
// graph), issued or not: the feed goes on after it.
const ChangeCursorPattern = `^[0-9]{1,18}\.(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2,3})?$`

var changeCursorForm = regexp.MustCompile(ChangeCursorPattern)

// EncodeCursor turns a cursor into an SSE id of ChangeCursorPattern's form.
func EncodeCursor(c graph.ChangeCursor) string {
	return strconv.FormatInt(c.UpdatedAt, 10) + "." + base64.RawURLEncoding.EncodeToString([]byte(c.Key))
}

// DecodeCursor reads a cursor of ChangeCursorPattern's form; any other is
// an error. A key that is not UTF-8 (none the feed issues) is read with
// its bad bytes replaced, as the graph's keys are text.
func DecodeCursor(s string) (graph.ChangeCursor, error) {
	if !changeCursorForm.MatchString(s) {
		return graph.ChangeCursor{}, errors.New("malformed cursor")
	}
	stamp, key, _ := strings.Cut(s, ".")
	ms, err := strconv.ParseInt(stamp, 10, 64)
	if err != nil {
		return graph.ChangeCursor{}, errors.New("malformed cursor")
	}
	raw, err := base64.RawURLEncoding.DecodeString(key)
	if err != nil {
		return graph.ChangeCursor{}, errors.New("malformed cursor")
	}
	return graph.ChangeCursor{UpdatedAt: ms, Key: strings.ToValidUTF8(string(raw), "\uFFFD")}, nil
}

// graphChanges serves GET /graph/changes: patches until the client goes
// away or the stream's maximum duration passes. Query: jurisdictions=IE,UK
// and labels=Concept,Rate filter; the resume point is the Last-Event-ID
// header (or lastEventId query parameter, for clients that cannot set
// headers).
func (a *API) graphChanges(w http.ResponseWriter, r *http.Request) error {
	if since, polling := r.URL.Query()["since"]; polling {
		return a.graphChangesPage(w, r, since[0])
	}
	return a.streamPatches(w, r, sendPatch)
}

// streamPatches runs the feed, writing each patch with send.
func (a *API) streamPatches(w http.ResponseWriter, r *http.Request, send func(*sseWriter, Patch) error) error {
	q, snapshot, problem := changeQuery(r, a.feed.MaxPatchItems)
	if problem != "" {
		return reply.InvalidRequest.With(problem)
	}
	ctx, cancel := a.streamContext(r.Context())
	defer cancel()
	sse := newSSEWriter(w)
	// Reconnect quickly; the cursor makes it lossless.
	if sse.retry(max(a.feed.PollInterval, 500*time.Millisecond)) != nil {
		return nil
	}
	stop := sse.keepAlive(ctx, a.keepAlive)
	defer stop()

	poll := time.NewTimer(0)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-poll.C:
		}
		if a.feed.SettleDelay > 0 {
			q.Until = graph.Timestamp(a.now().Add(-a.feed.SettleDelay))
		}
		changes, err := a.changes.Changes(ctx, q)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			a.log.Warn("graph change feed: read failed; retrying", "request_id", RequestID(ctx), "err", err)
			poll.Reset(a.feed.PollInterval)
			continue
		}
		hasMore := len(changes) == q.Limit
		if len(changes) > 0 || snapshot {
			if err := send(sse, buildPatch(changes, q.After, snapshot, hasMore, a.now().UTC())); err != nil {
				return nil
			}
			if len(changes) > 0 {
				q.After = changes[len(changes)-1].Cursor
			}
		}
		if !hasMore {
			snapshot = false
			poll.Reset(a.feed.PollInterval)
		} else {
			poll.Reset(0)
		}
	}
}

// ChangePage is the answer to a poll: one patch and the cursor to send as
// since next time (the same cursor when nothing changed).
type ChangePage struct {
	Patch      Patch  `json:"patch"`
	NextCursor string `json:"nextCursor"`
}

// graphChangesPage serves GET /graph/changes?since=<cursor>: one patch of
// the changes after the cursor as plain JSON, for clients that poll instead
// of holding a stream open (on Lambda an open stream keeps an environment
// busy). An empty since starts with the snapshot.
func (a *API) graphChangesPage(w http.ResponseWriter, r *http.Request, since string) error {
	q, _, problem := changeQuery(r, a.feed.MaxPatchItems)
	if problem != "" {
		return reply.InvalidRequest.With(problem)
	}
	q.After = graph.ChangeCursor{}
	snapshot := since == ""
	if !snapshot {
		c, err := DecodeCursor(since)
		if err != nil {
			return reply.InvalidRequest.With("since is not a cursor of this feed")
		}
		q.After = c
	}
	if a.feed.SettleDelay > 0 {
		q.Until = graph.Timestamp(a.now().Add(-a.feed.SettleDelay))
	}
	changes, err := a.changes.Changes(r.Context(), q)
	if err != nil {
		a.log.Error("graph change page: read failed", "request_id", RequestID(r.Context()), "err", err)
		return reply.GraphUnavailable
	}
	page := ChangePage{Patch: buildPatch(changes, q.After, snapshot, len(changes) == q.Limit, a.now().UTC()), NextCursor: since}
	if page.Patch.Meta.Cursor != "" {
		page.NextCursor = page.Patch.Meta.Cursor
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// changeQuery reads the feed's filters and resume point; snapshot is true
// without one. problem says what is wrong with the request.
func changeQuery(r *http.Request, limit int) (q graph.ChangeQuery, snapshot bool, problem string) {
	q = graph.ChangeQuery{
		Jurisdictions: splitList(r.URL.Query().Get("jurisdictions"), strings.ToUpper),
		Limit:         limit,
	}
	// Labels are exact names, comma-separated; an empty one (labels= or a
	// stray comma) is refused rather than read as no filter.
	if values, sent := r.URL.Query()["labels"]; sent {
		for _, l := range strings.Split(strings.Join(values, ","), ",") {
			if !graph.IsNodeLabel(l) {
				return q, false, "labels must be node labels, comma-separated"
			}
			if !slices.Contains(q.Labels, l) {
				q.Labels = append(q.Labels, l)
			}
		}
	}
	// The header wins over the query parameter, but a malformed one of
	// either is refused: each is stated with the cursor's form.
	var resume *graph.ChangeCursor
	for _, point := range []struct{ name, value string }{
		{"lastEventId", r.URL.Query().Get("lastEventId")},
		{HeaderLastEventID, r.Header.Get(HeaderLastEventID)},
	} {
		if point.value == "" {
			continue
		}
		c, err := DecodeCursor(point.value)
		if err != nil {
			return q, false, point.name + " is not a cursor of this feed (MILLISECONDS.KEY)"
		}
		resume = &c
	}
	if resume == nil {
		return q, true, ""
	}
	q.After = *resume
	return q, false, ""
}

// streamContext bounds a feed stream by its maximum duration and, under
// Lambda, ends it a little before the invocation's deadline, so the client
// reconnects instead of being cut off.
func (a *API) streamContext(ctx context.Context) (context.Context, context.CancelFunc) {
	limit := a.feed.MaxStreamDuration
	if deadline, ok := ctx.Deadline(); ok {
		if left := time.Until(deadline) - streamEndMargin; limit <= 0 || left < limit {
			limit = max(left, time.Second)
		}
	}
	if limit <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, limit)
}

// buildPatch sorts changes into added and updated. An item first appeared in
// the order at (created_at, key); the client has seen it only if that
// position is at or before its cursor, so otherwise it is added (everything
// is, in a snapshot).
func buildPatch(changes []graph.Change, after graph.ChangeCursor, snapshot, hasMore bool, now time.Time) Patch {
	p := Patch{
		Type:  "graph_patch",
		Nodes: NodeChanges{Added: []graph.Node{}, Updated: []graph.Node{}, Removed: []string{}},
		Edges: EdgeChanges{Added: []EdgeView{}, Updated: []EdgeView{}, Removed: []string{}},
		Meta:  PatchMeta{Snapshot: snapshot, HasMore: hasMore, Count: len(changes), GeneratedAt: now},
	}
	cursor := after
	for _, c := range changes {
		cursor = c.Cursor
		if c.Edge != nil && c.Edge.Type == "HAS_ALT_LABEL" && !graph.IsOfficial(c.Edge.Properties) {
			continue // an alias no official source gave is not shown
		}
		added := snapshot || after.Before(c.CreatedAt, c.Cursor.Key)
		switch {
		case c.Node != nil && added:
			p.Nodes.Added = append(p.Nodes.Added, graph.ShownNode(*c.Node))
		case c.Node != nil:
			p.Nodes.Updated = append(p.Nodes.Updated, graph.ShownNode(*c.Node))
		case c.Edge != nil && added:
			p.Edges.Added = append(p.Edges.Added, EdgeView{ID: strings.TrimPrefix(c.Cursor.Key, "e:"), Edge: *c.Edge})
		case c.Edge != nil:
			p.Edges.Updated = append(p.Edges.Updated, EdgeView{ID: strings.TrimPrefix(c.Cursor.Key, "e:"), Edge: *c.Edge})
		}
	}
	if !cursor.IsZero() {
		p.Meta.Cursor = EncodeCursor(cursor)
	}
	return p
}

// sendPatch writes the patch as a graph_patch frame; a patch without a
// cursor (an empty snapshot) carries no id, so it does not reset the
// client's resume point.
func sendPatch(sse *sseWriter, p Patch) error {
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return sse.event(p.Meta.Cursor, "graph_patch", data)
}

// graphNodes answers GET /graph/nodes?ids=a,b with {"nodes":[...]}, in the
// order asked; unknown ids are absent.
func (a *API) graphNodes(w http.ResponseWriter, r *http.Request) error {
	ids := splitList(r.URL.Query().Get("ids"), nil)
	if len(ids) == 0 {
		return reply.InvalidRequest.With("ids is required")
	}
	if len(ids) > a.feed.MaxLookupIDs {
		return reply.InvalidRequest.With(fmt.Sprintf("at most %d ids", a.feed.MaxLookupIDs))
	}
	nodes, err := a.graph.GetNodesByIDs(r.Context(), ids)
	if err != nil {
		a.log.Error("graph node lookup failed", "request_id", RequestID(r.Context()), "ids", len(ids), "err", err)
		return reply.GraphUnavailable
	}
	// Every tenant reads the same graph: a node no official source gave
	// shows bare, whichever reader served it.
	shown := make([]graph.Node, len(nodes))
	for i, n := range nodes {
		shown[i] = graph.ShownNode(n)
	}
	writeJSON(w, http.StatusOK, map[string]any{"nodes": shown})
	return nil
}

// splitList splits a comma-separated parameter, trimmed, without empties or
// repeats.
func splitList(s string, norm func(string) string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if norm != nil {
			part = norm(part)
		}
		if part != "" && !slices.Contains(out, part) {
			out = append(out, part)
		}
	}
	return out
}
