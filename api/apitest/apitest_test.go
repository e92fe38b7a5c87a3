package apitest_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"regintel/api/apitest"
)

// A data-only frame on an operation with x-sse-data is held to that schema,
// and a named event there to x-sse-events.
func TestUnnamedFramesAreCheckedAgainstTheirSchema(t *testing.T) {
	c := apitest.MustLoad(t)
	req := httptest.NewRequest(http.MethodGet, "http://api.test/api/graph/stream", nil)
	sse := http.Header{"Content-Type": {"text/event-stream"}}
	if p := c.Check(req, http.StatusOK, sse, []byte("id: 1\ndata: {\"type\":\"graph_patch\"}\n\n")); len(p) == 0 {
		t.Fatal("a graph patch without its fields passed")
	}
	if p := c.Check(req, http.StatusOK, sse, []byte("event: surprise\ndata: {}\n\n")); len(p) == 0 {
		t.Fatal("an undocumented named event passed")
	}
	if !c.Seen("GET /api/graph/stream") {
		t.Fatal("the operation checked was not recorded as seen")
	}
}

func TestParseFrame(t *testing.T) {
	f := apitest.ParseFrame("id: 7\nevent: upsert\ndata: {}")
	if f != (apitest.Frame{ID: "7", Event: "upsert", Data: "{}"}) {
		t.Fatalf("%+v", f)
	}
}
