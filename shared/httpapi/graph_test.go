package httpapi_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"regintel/shared/auth"
	"regintel/shared/concept"
	"regintel/shared/enrich"
	"regintel/shared/enrich/enrichtest"
	"regintel/shared/graph"
	"regintel/shared/graph/bolt/bolttest"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/graph/write"
	"regintel/shared/httpapi"
	"regintel/shared/jurisdiction"
	"regintel/shared/llm/llmtest"
	"regintel/shared/llm/openai"
	"regintel/shared/queue"
)

type graphStore interface {
	graph.ConceptStore
	graph.Writer
	graph.ChangeReader
}

// feedEvent is one SSE frame: a patch (with its id) or a comment.
type feedEvent struct {
	id      string
	patch   httpapi.Patch
	comment string
}

// connect opens /graph/changes and streams its frames until ctx ends.
func connect(t *testing.T, ctx context.Context, base, query, lastEventID string) <-chan feedEvent {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/graph/changes"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	out := make(chan feedEvent)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		var ev feedEvent
		var data string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, ":"):
				select {
				case out <- feedEvent{comment: strings.TrimSpace(line[1:])}:
				case <-ctx.Done():
					return
				}
			case strings.HasPrefix(line, "id: "):
				ev.id = line[4:]
			case strings.HasPrefix(line, "data: "):
				data = line[6:]
			case line == "" && data != "":
				if err := json.Unmarshal([]byte(data), &ev.patch); err != nil {
					t.Errorf("patch is not JSON: %v", err)
					return
				}
				select {
				case out <- ev:
				case <-ctx.Done():
					return
				}
				ev, data = feedEvent{}, ""
			}
		}
	}()
	return out
}

// received tracks what a client saw: every (key, updated_at) once.
type received struct {
	t      *testing.T
	seen   map[string]int // "key@updated_at" -> times
	lastID string
}

func (r *received) add(ev feedEvent) {
	if ev.id != "" {
		r.lastID = ev.id
	}
	record := func(key string, at time.Time) { r.seen[fmt.Sprintf("%s@%d", key, at.UnixMilli())]++ }
	p := ev.patch
	for _, n := range append(append([]graph.Node{}, p.Nodes.Added...), p.Nodes.Updated...) {
		record(graph.NodeChangeKey(n.ID), n.UpdatedAt)
	}
	for _, e := range append(append([]httpapi.EdgeView{}, p.Edges.Added...), p.Edges.Updated...) {
		record(graph.EdgeChangeKey(e.FromID, e.Type, e.ToID), e.UpdatedAt)
	}
}

func (r *received) has(key string) bool {
	for k := range r.seen {
		if strings.HasPrefix(k, key+"@") {
			return true
		}
	}
	return false
}

// readUntil consumes patches until every key was received.
func (r *received) readUntil(ctx context.Context, events <-chan feedEvent, keys []string, check func(feedEvent)) {
	r.t.Helper()
	for {
		missing := slices.DeleteFunc(slices.Clone(keys), r.has)
		if len(missing) == 0 {
			return
		}
		select {
		case ev, ok := <-events:
			if !ok {
				r.t.Fatalf("stream ended; still missing %v", missing)
			}
			if ev.comment != "" {
				continue
			}
			if check != nil {
				check(ev)
			}
			r.add(ev)
		case <-ctx.Done():
			r.t.Fatalf("gave up waiting; still missing %v", missing)
		}
	}
}

func keysOf(conceptID string, want enrichtest.Expected) []string {
	keys := []string{graph.NodeChangeKey(conceptID)}
	for _, id := range want.NodeIDs {
		keys = append(keys, graph.NodeChangeKey(id))
	}
	for _, e := range want.Edges {
		keys = append(keys, graph.EdgeChangeKey(e[0], e[1], e[2]))
	}
	return keys
}

func uniqueJurisdiction() string {
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	code := "T" + strings.ToUpper(hex.EncodeToString(b))
	jurisdiction.RegisterTestCode(code)
	return code
}

func TestFeedMemory(t *testing.T) { runFeedScenario(t, graphmem.New()) }

func TestFeedBolt(t *testing.T) { runFeedScenario(t, bolttest.Open(t)) }

// runFeedScenario: a client gets the snapshot (concepts included) in
// bounded patches, sees an enrichment's nodes and edges arrive as patches,
// disconnects, and on reconnecting with Last-Event-ID receives what changed
// meanwhile: nothing lost, nothing twice.
func runFeedScenario(t *testing.T, s graphStore) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a hang guard, not an assertion
	defer cancel()
	fs := newFeedScenario(t, ctx, s)
	first := fs.readSnapshotAndEnrichment(t, ctx)
	second := fs.resumeAfterEnrichment(t, ctx, first)

	// Nothing twice, nothing lost: every current (key, updated_at) of the
	// jurisdiction was received exactly once over the two connections.
	all, err := s.Changes(ctx, graph.ChangeQuery{Jurisdictions: []string{fs.jur}, Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	for k, n := range second.seen {
		first.seen[k] += n
	}
	for _, c := range all {
		k := fmt.Sprintf("%s@%d", c.Cursor.Key, c.Cursor.UpdatedAt)
		if first.seen[k] != 1 {
			t.Errorf("%s received %d times", k, first.seen[k])
		}
	}
	for k, n := range first.seen {
		if n > 1 {
			t.Errorf("%s received %d times", k, n)
		}
	}
}

// feedMaxItems bounds each patch of the feed scenario.
const feedMaxItems = 5

// feedScenario is two concepts of a fresh jurisdiction on s, an enrich
// handler on the local site, and the feed served on them.
type feedScenario struct {
	jur          string
	vat, benefit concept.Concept
	site         *enrichtest.Site
	handler      *enrich.Handler
	url, query   string
}

func newFeedScenario(t *testing.T, ctx context.Context, s graphStore) *feedScenario {
	t.Helper()
	fs := &feedScenario{jur: uniqueJurisdiction(), site: enrichtest.NewSite(t)}
	fs.vat = concept.Normalize(concept.Concept{Domain: "TAX", Jurisdiction: fs.jur, Kind: "VAT", PrefLabel: "Value-Added Tax"})
	fs.benefit = concept.Normalize(concept.Concept{Domain: "SOCIAL_WELFARE", Jurisdiction: fs.jur, Kind: "JOBSEEKERS_BENEFIT", PrefLabel: "Jobseeker's Benefit"})
	if _, err := write.NewService(s).ResolveConcepts(ctx, []concept.Concept{fs.vat, fs.benefit}, graph.ProvenanceOfficial); err != nil {
		t.Fatal(err)
	}

	fake := llmtest.NewServer(t)
	fake.SetResponder(enrichtest.Responder())
	catalog := fs.site.Catalog(t, fs.jur)
	handler, err := enrich.New(enrich.Deps{
		Writes: write.NewService(s, write.WithSources(catalog)), Sources: catalog, Fetcher: fs.site.Fetcher(catalog), Extractor: enrichtest.Extractor(),
		Provider: openai.NewResponses(openai.Config{APIKey: "test", BaseURL: fake.BaseURL()}),
	}, enrich.Config{})
	if err != nil {
		t.Fatal(err)
	}
	fs.handler = handler

	srv := httptest.NewServer(checkedByContract(t, httpapi.New(httpapi.Options{
		Auth: auth.Dev{DefaultTenant: "t1", DefaultUser: "u1"}, Graph: s, GraphChanges: s, KeepAlive: 25 * time.Millisecond,
		Feed: httpapi.FeedConfig{PollInterval: 10 * time.Millisecond, SettleDelay: -1, MaxPatchItems: feedMaxItems},
	})))
	t.Cleanup(srv.Close)
	fs.url, fs.query = srv.URL, "?jurisdictions="+strings.ToLower(fs.jur)
	return fs
}

// checkBoundedPatch: a patch holds at most feedMaxItems items, counts them
// in its meta, and a non-empty one carries its cursor as the event id.
func checkBoundedPatch(t *testing.T, ev feedEvent) {
	t.Helper()
	p := ev.patch
	n := len(p.Nodes.Added) + len(p.Nodes.Updated) + len(p.Edges.Added) + len(p.Edges.Updated)
	if p.Type != "graph_patch" || n > feedMaxItems || n != p.Meta.Count || (n > 0 && ev.id != p.Meta.Cursor) {
		t.Errorf("bad patch: type %q, %d items (meta %d), id %q cursor %q", p.Type, n, p.Meta.Count, ev.id, p.Meta.Cursor)
	}
}

// readSnapshotAndEnrichment connects once: the snapshot brings both
// concepts as added, then an enrichment's nodes and edges arrive as
// patches (more than one: patches are bounded), then keepalives flow while
// nothing changes; then it disconnects.
func (fs *feedScenario) readSnapshotAndEnrichment(t *testing.T, ctx context.Context) *received {
	t.Helper()
	connCtx, closeConn := context.WithCancel(ctx)
	first := &received{t: t, seen: map[string]int{}}
	events := connect(t, connCtx, fs.url, fs.query, "")
	first.readUntil(ctx, events, []string{graph.NodeChangeKey(fs.vat.ID), graph.NodeChangeKey(fs.benefit.ID)}, func(ev feedEvent) {
		checkBoundedPatch(t, ev)
		if !ev.patch.Meta.Snapshot {
			t.Errorf("first patches should be the snapshot")
		}
	})

	if _, err := fs.handler.Enrich(ctx, queue.EnrichmentRequested{ConceptID: fs.vat.ID, Domain: "TAX", Kind: "VAT", Jurisdiction: fs.jur}); err != nil {
		t.Fatal(err)
	}
	patches := 0
	first.readUntil(ctx, events, keysOf(fs.vat.ID, fs.site.ExpectedVAT(fs.vat.ID, fs.jur)), func(ev feedEvent) {
		checkBoundedPatch(t, ev)
		patches++
		for _, n := range ev.patch.Nodes.Updated {
			// Guidance nodes are shared by every concept citing the page,
			// so on the shared test server they may predate this test.
			if n.ID != fs.vat.ID && !strings.HasPrefix(n.ID, "GUIDANCE:") {
				t.Errorf("%s reported as updated; it is new", n.ID)
			}
		}
	})
	if patches < 2 {
		t.Fatalf("the enrichment's 20 items came in %d patch(es) of at most %d", patches, feedMaxItems)
	}
	for ev := range events {
		if ev.comment == "keepalive" {
			break
		}
		if ev.comment == "" {
			first.add(ev)
		}
	}
	closeConn()
	for range events { // drain until the reader goroutine exits
	}
	return first
}

// resumeAfterEnrichment enriches the second concept while disconnected,
// then resumes from first's last id: what changed arrives, and no snapshot.
func (fs *feedScenario) resumeAfterEnrichment(t *testing.T, ctx context.Context, first *received) *received {
	t.Helper()
	if _, err := fs.handler.Enrich(ctx, queue.EnrichmentRequested{ConceptID: fs.benefit.ID, Domain: "SOCIAL_WELFARE", Kind: "JOBSEEKERS_BENEFIT", Jurisdiction: fs.jur}); err != nil {
		t.Fatal(err)
	}
	if first.lastID == "" {
		t.Fatal("no patch id to resume from")
	}
	second := &received{t: t, seen: map[string]int{}}
	connCtx, closeConn := context.WithCancel(ctx)
	defer closeConn()
	events := connect(t, connCtx, fs.url, fs.query, first.lastID)
	second.readUntil(ctx, events, keysOf(fs.benefit.ID, fs.site.ExpectedBenefit(fs.benefit.ID)), func(ev feedEvent) {
		checkBoundedPatch(t, ev)
		if ev.patch.Meta.Snapshot {
			t.Errorf("a resumed stream sent a snapshot")
		}
	})

	closeConn()
	for range events {
	}
	return second
}

func TestFeedRequestErrors(t *testing.T) {
	s := graphmem.New()
	srv := httptest.NewServer(checkedByContract(t, httpapi.New(httpapi.Options{Auth: auth.Dev{}, Graph: s, GraphChanges: s, Feed: httpapi.FeedConfig{MaxLookupIDs: 2}})))
	defer srv.Close()
	for _, tc := range []struct {
		path    string
		headers map[string]string
		status  int
	}{
		{"/graph/changes", nil, http.StatusUnauthorized},
		{"/graph/changes", map[string]string{"X-Tenant-Id": "t", "X-User-Id": "u", "Last-Event-ID": "garbage"}, http.StatusBadRequest},
		{"/graph/changes?labels=User", map[string]string{"X-Tenant-Id": "t", "X-User-Id": "u"}, http.StatusBadRequest},
		{"/graph/changes?labels=", map[string]string{"X-Tenant-Id": "t", "X-User-Id": "u"}, http.StatusBadRequest},
		{"/graph/changes?labels=Concept,,Rate&since=", map[string]string{"X-Tenant-Id": "t", "X-User-Id": "u"}, http.StatusBadRequest},
		{"/graph/changes?labels=Concept,Rate&since=", map[string]string{"X-Tenant-Id": "t", "X-User-Id": "u"}, http.StatusOK},
		// A malformed resume point is refused even where the other wins.
		{"/graph/changes?lastEventId=garbage&since=", map[string]string{"X-Tenant-Id": "t", "X-User-Id": "u", "Last-Event-ID": "0."}, http.StatusBadRequest},
		{"/graph/changes?lastEventId=0.&since=", map[string]string{"X-Tenant-Id": "t", "X-User-Id": "u", "Last-Event-ID": "0.YQ"}, http.StatusOK},
		{"/graph/changes?since=1.A", map[string]string{"X-Tenant-Id": "t", "X-User-Id": "u"}, http.StatusBadRequest},
		{"/graph/nodes?ids=a,b,c", map[string]string{"X-Tenant-Id": "t", "X-User-Id": "u"}, http.StatusBadRequest},
		{"/graph/nodes", map[string]string{"X-Tenant-Id": "t", "X-User-Id": "u"}, http.StatusBadRequest},
		{"/graph/nodes?ids=a", nil, http.StatusUnauthorized},
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+tc.path, nil)
		for k, v := range tc.headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d", tc.path, resp.StatusCode, tc.status)
		}
	}
}

func TestNodesLookup(t *testing.T) {
	s, err := graphmem.NewSeeded(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(checkedByContract(t, httpapi.New(httpapi.Options{Auth: auth.Dev{DefaultTenant: "t", DefaultUser: "u"}, Graph: s, GraphChanges: s})))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/graph/nodes?ids=TAX:IE:VAT,NOPE,TAX:IE:VRT")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Nodes []graph.Node }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d err %v", resp.StatusCode, err)
	}
	if len(body.Nodes) != 2 || body.Nodes[0].ID != "TAX:IE:VAT" || body.Nodes[1].ID != "TAX:IE:VRT" {
		t.Fatalf("nodes %+v", body.Nodes)
	}
}

func TestCursorRoundTrip(t *testing.T) {
	c := graph.ChangeCursor{UpdatedAt: 1764110000123, Key: "e:TAX:IE:VAT|HAS_RATE|TAX:IE:VAT:RATE:standard\nrate"}
	enc := httpapi.EncodeCursor(c)
	if strings.ContainsAny(enc, "\r\n") {
		t.Fatal("cursor is not one line")
	}
	got, err := httpapi.DecodeCursor(enc)
	if err != nil || got != c {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	for _, bad := range []string{"", "12", "x.abc", "-1.YQ", "+1.YQ", "12.***", "1.A", "1.YQ=", "1234567890123456789.YQ", "1.YQ\n"} {
		if _, err := httpapi.DecodeCursor(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// Any cursor of the stated form is a position, a key that is not
	// UTF-8 (none the feed issues) read with its bad bytes replaced.
	if got, err := httpapi.DecodeCursor("0._w"); err != nil || got != (graph.ChangeCursor{UpdatedAt: 0, Key: "\uFFFD"}) {
		t.Errorf("0._w: %+v %v", got, err)
	}
	if got, err := httpapi.DecodeCursor("7."); err != nil || got != (graph.ChangeCursor{UpdatedAt: 7}) {
		t.Errorf("7.: %+v %v", got, err)
	}
}
