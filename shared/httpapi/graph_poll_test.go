package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"

	"regintel/shared/auth"
	"regintel/shared/concept"
	"regintel/shared/graph"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/graph/write"
	"regintel/shared/httpapi"
)

// A polling client reads the feed as JSON pages: the snapshot first, then
// only what changed after its cursor, and the same cursor back when nothing
// did.
func TestFeedPolledAsJSONPages(t *testing.T) {
	s := graphmem.New()
	writes := write.NewService(s)
	ctx := context.Background()
	jur := uniqueJurisdiction()
	vat := concept.Normalize(concept.Concept{Domain: "TAX", Jurisdiction: jur, Kind: "VAT", PrefLabel: "Value-Added Tax"})
	if _, err := writes.ResolveConcepts(ctx, []concept.Concept{vat}, graph.ProvenanceOfficial); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(checkedByContract(t, httpapi.New(httpapi.Options{
		Auth: auth.Dev{DefaultTenant: "t1", DefaultUser: "u1"}, Graph: s, GraphChanges: s,
		Feed: httpapi.FeedConfig{SettleDelay: -1},
	})))
	defer srv.Close()
	poll := func(since string) httpapi.ChangePage { t.Helper(); return pollFeed(t, srv.URL, since) }

	first := poll("")
	if !first.Patch.Meta.Snapshot || !hasNode(first.Patch.Nodes.Added, vat.ID) || first.NextCursor == "" {
		t.Fatalf("first page: %+v", first)
	}
	idle := poll(first.NextCursor)
	if idle.Patch.Meta.Count != 0 || idle.NextCursor != first.NextCursor {
		t.Fatalf("nothing changed, yet the page is %+v", idle)
	}

	vrt := concept.Normalize(concept.Concept{Domain: "TAX", Jurisdiction: jur, Kind: "VRT", PrefLabel: "Vehicle Registration Tax"})
	if _, err := writes.ResolveConcepts(ctx, []concept.Concept{vrt}, graph.ProvenanceOfficial); err != nil {
		t.Fatal(err)
	}
	next := poll(idle.NextCursor)
	if next.Patch.Meta.Snapshot || !hasNode(next.Patch.Nodes.Added, vrt.ID) || hasNode(next.Patch.Nodes.Added, vat.ID) {
		t.Fatalf("after a write: %+v", next)
	}
	if next.NextCursor == idle.NextCursor || next.NextCursor != next.Patch.Meta.Cursor {
		t.Fatalf("cursor did not move on: %q then %q", idle.NextCursor, next.NextCursor)
	}

	resp, err := http.Get(srv.URL + "/graph/changes?since=garbage")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a malformed cursor: status %d, want 400", resp.StatusCode)
	}

	// A cursor of the stated form is a position, issued or not: before
	// every change the page holds them all (not as a snapshot), after the
	// last it is empty and the cursor stays.
	if all := pollFeed(t, srv.URL, "0."); all.Patch.Meta.Snapshot || !hasNode(all.Patch.Nodes.Added, vat.ID) || !hasNode(all.Patch.Nodes.Added, vrt.ID) {
		t.Fatalf("from the feed's start: %+v", all.Patch.Meta)
	}
	const future = "999999999999999999.YQ"
	if none := pollFeed(t, srv.URL, future); none.Patch.Meta.Count != 0 || none.NextCursor != future {
		t.Fatalf("after the last change: %+v, next %q", none.Patch.Meta, none.NextCursor)
	}
}

// pollFeed reads one JSON page of the feed after cursor since.
func pollFeed(t *testing.T, serverURL, since string) httpapi.ChangePage {
	t.Helper()
	resp, err := http.Get(serverURL + "/graph/changes?since=" + url.QueryEscape(since))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var page httpapi.ChangePage
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		t.Fatal(err)
	}
	return page
}

func hasNode(nodes []graph.Node, id string) bool {
	return slices.ContainsFunc(nodes, func(n graph.Node) bool { return n.ID == id })
}
