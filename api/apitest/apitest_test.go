package apitest_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"regintel/api/apitest"
)

// A data-only frame is held to the schema of the itemSchema's "message"
// branch, and a named event the itemSchema lacks is refused.
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

// The chat stream's itemSchema names every event, and the UI chunks are
// read by their type.
func TestEventSchemasReadTheItemSchema(t *testing.T) {
	c := apitest.MustLoad(t)
	stream := c.Doc.Components.Responses["ChatStream"].Value.Content.Get("text/event-stream")
	events := apitest.EventSchemas(stream)
	for _, name := range []string{"start", "message", "warning", "disclaimer", "context_request", "metadata", "error", "done"} {
		if events[name] == nil {
			t.Errorf("no schema for event %s", name)
		}
	}
	chunks := c.ChunkTypes()
	for _, name := range []string{"start", "text-start", "text-delta", "text-end", "error", "finish"} {
		if chunks[name] == nil {
			t.Errorf("no schema for chunk %s", name)
		}
	}
	req := httptest.NewRequest(http.MethodPost, "http://api.test/chat", nil)
	sse := http.Header{"Content-Type": {"text/event-stream"}}
	if p := c.Check(req, http.StatusOK, sse, []byte("event: error\ndata: {\"message\":\"no code\"}\n\n")); len(p) == 0 {
		t.Error("an error event without its code passed")
	}
}
