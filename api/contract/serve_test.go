package contract_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"regintel/api/apitest"
	"regintel/api/contract"
)

// serve runs one session of the checker's protocol and returns its replies.
func serve(t *testing.T, c *contract.Contract, reqs ...apitest.Request) []apitest.Reply {
	t.Helper()
	var in, out bytes.Buffer
	for _, r := range reqs {
		if err := json.NewEncoder(&in).Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Serve(&in, &out); err != nil {
		t.Fatal(err)
	}
	var replies []apitest.Reply
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r apitest.Reply
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		replies = append(replies, r)
	}
	if len(replies) != len(reqs) {
		t.Fatalf("%d replies to %d requests", len(replies), len(reqs))
	}
	return replies
}

// What the main module's tests send is checked as Check would, the
// operation counts as seen, and Unseen shrinks by it.
func TestServeChecksExchangesAndReportsCoverage(t *testing.T) {
	c := contract.MustLoad(t)
	health := func(status int, body string) apitest.Request {
		return apitest.Request{Exchange: &apitest.Exchange{
			Method: http.MethodGet, Host: "127.0.0.1:1", Target: "/healthz",
			Status: status, RespHeader: http.Header{"Content-Type": {"application/json"}}, RespBody: []byte(body),
		}}
	}
	replies := serve(t, c,
		apitest.Request{Unseen: true},
		health(http.StatusOK, `{"status":"ok"}`),
		health(http.StatusOK, `{"state":"ok"}`),
		apitest.Request{Unseen: true},
		apitest.Request{},
	)
	if !slices.Contains(replies[0].Unseen, "GET /healthz") || slices.Contains(replies[0].Unseen, "GET /api/conversations") {
		t.Fatalf("unseen before any exchange: %v", replies[0].Unseen)
	}
	if len(replies[1].Problems) != 0 || replies[1].Err != "" {
		t.Fatalf("a documented health answer refused: %+v", replies[1])
	}
	if len(replies[2].Problems) == 0 || !strings.Contains(strings.Join(replies[2].Problems, " "), "status") {
		t.Fatalf("a health answer without its status field passed: %+v", replies[2])
	}
	if slices.Contains(replies[3].Unseen, "GET /healthz") || len(replies[3].Unseen) != len(replies[0].Unseen)-1 {
		t.Fatalf("unseen after GET /healthz: %v", replies[3].Unseen)
	}
	if replies[4].Err == "" {
		t.Fatal("an empty request was answered without an error")
	}
}
