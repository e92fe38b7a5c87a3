// Package graphfeed is the graph change feed (seed 001 §6.3): GET
// /graph/changes streams the graph's changes as Server-Sent Events patches,
// computed from updated_at, for the graph UI; GET /graph/nodes looks nodes
// up by id.
//
// A stream starts with a snapshot (every node and edge, as "added", in
// bounded patches) or, when the client sends Last-Event-ID, right after the
// patch with that id. Each patch's id is the cursor of its last item, so a
// client that reconnects with it misses nothing and receives nothing twice.
package graphfeed

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"regintel/shared/graph"
	"regintel/shared/httpapi"
)

// Config tunes the feed; zero values mean the defaults.
type Config struct {
	// PollInterval is how often the graph is asked for changes (default 2s).
	PollInterval time.Duration
	// KeepAlive is the longest silence before a ": keepalive" comment
	// (default 15s), so proxies keep the stream open.
	KeepAlive time.Duration
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
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// streamEndMargin is how long before the request's deadline a stream ends.
const streamEndMargin = 5 * time.Second

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.PollInterval, 2*time.Second)
	def(&c.KeepAlive, 15*time.Second)
	def(&c.SettleDelay, 2*time.Second)
	def(&c.MaxStreamDuration, 10*time.Minute)
	if c.MaxPatchItems <= 0 {
		c.MaxPatchItems = 200
	}
	if c.MaxLookupIDs <= 0 {
		c.MaxLookupIDs = 100
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Feed serves the graph routes.
type Feed struct {
	changes graph.ChangeReader
	nodes   graph.Reader
	cfg     Config
	log     *slog.Logger
}

// New returns a feed reading changes and nodes from the graph (the memory
// and Bolt stores implement both).
func New(changes graph.ChangeReader, nodes graph.Reader, cfg Config, log *slog.Logger) *Feed {
	if log == nil {
		log = slog.Default()
	}
	return &Feed{changes: changes, nodes: nodes, cfg: cfg.withDefaults(), log: log}
}

// Routes registers GET /graph/changes and GET /graph/nodes; it matches
// httpapi.Options.Routes.
func (f *Feed) Routes(mux *http.ServeMux, a *httpapi.API) {
	mux.HandleFunc("/graph/changes", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			httpapi.MethodNotAllowed(w, http.MethodGet)
			return
		}
		if _, ok := a.Authenticate(w, r); !ok {
			return
		}
		f.ServeChanges(w, r)
	})
	mux.HandleFunc("/graph/nodes", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			httpapi.MethodNotAllowed(w, http.MethodGet)
			return
		}
		if _, ok := a.Authenticate(w, r); !ok {
			return
		}
		f.ServeNodes(w, r)
	})
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

// EncodeCursor turns a cursor into an SSE id: opaque, one line.
func EncodeCursor(c graph.ChangeCursor) string {
	return strconv.FormatInt(c.UpdatedAt, 10) + "." + base64.RawURLEncoding.EncodeToString([]byte(c.Key))
}

// DecodeCursor parses an SSE id made by EncodeCursor.
func DecodeCursor(s string) (graph.ChangeCursor, error) {
	ts, key, ok := strings.Cut(s, ".")
	if !ok {
		return graph.ChangeCursor{}, errors.New("malformed cursor")
	}
	ms, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || ms < 0 {
		return graph.ChangeCursor{}, errors.New("malformed cursor")
	}
	raw, err := base64.RawURLEncoding.DecodeString(key)
	if err != nil {
		return graph.ChangeCursor{}, errors.New("malformed cursor")
	}
	return graph.ChangeCursor{UpdatedAt: ms, Key: string(raw)}, nil
}

// ServeChanges streams patches until the client goes away or the stream's
// maximum duration passes. Query: jurisdictions=IE,UK and labels=Concept,Rate
// filter; the resume point is the Last-Event-ID header (or lastEventId
// query parameter, for clients that cannot set headers).
func (f *Feed) ServeChanges(w http.ResponseWriter, r *http.Request) {
	q := graph.ChangeQuery{
		Jurisdictions: splitList(r.URL.Query().Get("jurisdictions"), strings.ToUpper),
		Labels:        splitList(r.URL.Query().Get("labels"), nil),
		Limit:         f.cfg.MaxPatchItems,
	}
	for _, l := range q.Labels {
		if !graph.IsNodeLabel(l) {
			httpapi.WriteError(w, http.StatusBadRequest, "invalid_request", "unknown label in labels")
			return
		}
	}
	snapshot := true
	resume := r.Header.Get("Last-Event-ID")
	if resume == "" {
		resume = r.URL.Query().Get("lastEventId")
	}
	if resume != "" {
		c, err := DecodeCursor(resume)
		if err != nil {
			httpapi.WriteError(w, http.StatusBadRequest, "invalid_request", "Last-Event-ID is not a cursor of this feed")
			return
		}
		q.After, snapshot = c, false
	}

	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	ctx := r.Context()
	limit := f.cfg.MaxStreamDuration
	// Under Lambda the invocation has a deadline: end the stream cleanly a
	// little before it, so the client reconnects instead of being cut off.
	if deadline, ok := ctx.Deadline(); ok {
		if left := time.Until(deadline) - streamEndMargin; limit <= 0 || left < limit {
			limit = max(left, time.Second)
		}
	}
	if limit > 0 {
		var cancel func()
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	send := func(frame string) bool {
		if _, err := fmt.Fprint(w, frame); err != nil {
			return false
		}
		_ = rc.Flush()
		return true
	}
	// Reconnect quickly; the cursor makes it lossless.
	if !send(fmt.Sprintf("retry: %d\n\n", max(f.cfg.PollInterval.Milliseconds(), 500))) {
		return
	}

	poll := time.NewTimer(0)
	defer poll.Stop()
	keepAlive := time.NewTicker(f.cfg.KeepAlive)
	defer keepAlive.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-keepAlive.C:
			if !send(": keepalive\n\n") {
				return
			}
			continue
		case <-poll.C:
		}
		if f.cfg.SettleDelay > 0 {
			q.Until = graph.Timestamp(f.cfg.Now().Add(-f.cfg.SettleDelay))
		}
		changes, err := f.changes.Changes(ctx, q)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			f.log.WarnContext(ctx, "graph change feed: read failed; retrying", "request_id", httpapi.RequestID(ctx), "err", err)
			poll.Reset(f.cfg.PollInterval)
			continue
		}
		hasMore := len(changes) == q.Limit
		if len(changes) > 0 || snapshot {
			patch := buildPatch(changes, q.After, snapshot, hasMore, f.cfg.Now().UTC())
			frame, err := encodeFrame(patch)
			if err != nil {
				f.log.ErrorContext(ctx, "graph change feed: encode patch", "err", err)
				return
			}
			if !send(frame) {
				return
			}
			keepAlive.Reset(f.cfg.KeepAlive)
			if len(changes) > 0 {
				q.After = changes[len(changes)-1].Cursor
			}
		}
		if !hasMore {
			snapshot = false
			poll.Reset(f.cfg.PollInterval)
		} else {
			poll.Reset(0)
		}
	}
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
		added := snapshot || after.Before(c.CreatedAt, c.Cursor.Key)
		switch {
		case c.Node != nil && added:
			p.Nodes.Added = append(p.Nodes.Added, *c.Node)
		case c.Node != nil:
			p.Nodes.Updated = append(p.Nodes.Updated, *c.Node)
		case c.Edge != nil && added:
			p.Edges.Added = append(p.Edges.Added, EdgeView{ID: strings.TrimPrefix(c.Cursor.Key, "e:"), Edge: *c.Edge})
		case c.Edge != nil:
			p.Edges.Updated = append(p.Edges.Updated, EdgeView{ID: strings.TrimPrefix(c.Cursor.Key, "e:"), Edge: *c.Edge})
		}
		cursor = c.Cursor
	}
	if !cursor.IsZero() {
		p.Meta.Cursor = EncodeCursor(cursor)
	}
	return p
}

// encodeFrame writes the SSE frame; a patch without a cursor (an empty
// snapshot) carries no id, so it does not reset the client's resume point.
func encodeFrame(p Patch) (string, error) {
	data, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if p.Meta.Cursor != "" {
		b.WriteString("id: " + p.Meta.Cursor + "\n")
	}
	b.WriteString("event: graph_patch\ndata: ")
	b.Write(data)
	b.WriteString("\n\n")
	return b.String(), nil
}

// ServeNodes answers GET /graph/nodes?ids=a,b with {"nodes":[...]}, in the
// order asked; unknown ids are absent.
func (f *Feed) ServeNodes(w http.ResponseWriter, r *http.Request) {
	ids := splitList(r.URL.Query().Get("ids"), nil)
	if len(ids) == 0 {
		httpapi.WriteError(w, http.StatusBadRequest, "invalid_request", "ids is required")
		return
	}
	if len(ids) > f.cfg.MaxLookupIDs {
		httpapi.WriteError(w, http.StatusBadRequest, "invalid_request", fmt.Sprintf("at most %d ids", f.cfg.MaxLookupIDs))
		return
	}
	nodes, err := f.nodes.GetNodesByIDs(r.Context(), ids)
	if err != nil {
		f.log.ErrorContext(r.Context(), "graph node lookup failed", "request_id", httpapi.RequestID(r.Context()), "ids", len(ids), "err", err)
		httpapi.WriteError(w, http.StatusServiceUnavailable, "graph_unavailable", "the graph could not be read")
		return
	}
	if nodes == nil {
		nodes = []graph.Node{}
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"nodes": nodes})
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
