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
		Conversations: a.conversations, Sharing: a.sharing, Graph: a.graph,
		Caller:       func(r *http.Request) auth.Caller { return caller(r) },
		RequestID:    RequestID,
		DecodeJSON:   a.decodeJSON,
		OpenStream:   a.openCompatStream,
		PollInterval: a.feed.PollInterval,
		Log:          a.log,
	})
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
