package httpapi

import (
	"context"
	"net/http"

	"regintel/shared/auth"
	"regintel/shared/graph"
	"regintel/shared/httpapi/compat"
)

// newCompat builds the adapter behind CompatRoutes over the API's parts;
// its streams get the feed's bounds and keepalives.
func (a *API) newCompat() *compat.Adapter {
	return compat.New(compat.Deps{
		Host: compatHost{a}, Conversations: a.conversations, Sharing: a.sharing, Graph: a.graph,
		PollInterval: a.feed.PollInterval, Log: a.log,
	})
}

// compatHost is the API as the compat adapter's host.
type compatHost struct{ a *API }

func (h compatHost) Caller(r *http.Request) auth.Caller { return caller(r) }

func (h compatHost) DecodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	return h.a.decodeJSON(w, r, v)
}

func (h compatHost) RequestID(ctx context.Context) string { return RequestID(ctx) }

func (h compatHost) OpenStream(w http.ResponseWriter, r *http.Request) (compat.Stream, func()) {
	return h.a.openCompatStream(w, r)
}

// compatStream is an SSE response bounded as the graph feed is.
type compatStream struct {
	ctx context.Context
	sse *sseWriter
}

func (s compatStream) Context() context.Context { return s.ctx }

func (s compatStream) Send(id, event string, data []byte) error { return s.sse.event(id, event, data) }

func (a *API) openCompatStream(w http.ResponseWriter, r *http.Request) (compat.Stream, func()) {
	ctx, cancel := a.streamContext(r.Context())
	sse := newSSEWriter(w)
	sse.start()
	stop := sse.keepAlive(ctx, a.keepAlive)
	return compatStream{ctx: ctx, sse: sse}, func() { stop(); cancel() }
}

// compatGraphStream serves GET /api/graph/stream: the graph feed with
// unnamed events (the reference's graph page listens with onmessage) in
// the reference's patch shape.
func (a *API) compatGraphStream(w http.ResponseWriter, r *http.Request) error {
	return a.streamPatches(w, r, func(sse *sseWriter, p Patch) error {
		c := compat.GraphChanges{
			AddedNodes: p.Nodes.Added, UpdatedNodes: p.Nodes.Updated,
			AddedEdges: edgesOf(p.Edges.Added), UpdatedEdges: edgesOf(p.Edges.Updated),
			Snapshot: p.Meta.Snapshot, HasMore: p.Meta.HasMore, At: p.Meta.GeneratedAt,
		}
		data, err := compat.GraphPatchData(c)
		if err != nil {
			return err
		}
		return sse.event(p.Meta.Cursor, "", data)
	})
}

func edgesOf(views []EdgeView) []graph.Edge {
	out := make([]graph.Edge, len(views))
	for i, v := range views {
		out[i] = v.Edge
	}
	return out
}
