package openai_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"regintel/shared/llm"
	"regintel/shared/llm/openai"
)

// rawSSE serves fixed SSE bytes, for event shapes the scripted fake does not
// produce (interleaved calls, nested error objects).
func rawSSE(t *testing.T, body string) *openai.Responses {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return openai.NewResponses(openai.Config{APIKey: "k", BaseURL: srv.URL + "/v1/", HTTPClient: srv.Client()})
}

func sse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		typ := strings.SplitN(strings.SplitN(e, `"type":"`, 2)[1], `"`, 2)[0]
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", typ, e)
	}
	return b.String()
}

// Two calls whose deltas interleave, keyed by item id and output index; the
// .done arguments win over the deltas; no output_item.done is sent; each
// call keeps the call_id its output_item.added announced.
func TestResponsesInterleavedCalls(t *testing.T) {
	provider := rawSSE(t, sse(
		`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_a","type":"function_call","arguments":"","call_id":"c1","name":"first"},"sequence_number":1}`,
		`{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_b","type":"function_call","arguments":"","call_id":"c2","name":"second"},"sequence_number":2}`,
		`{"type":"response.function_call_arguments.delta","item_id":"fc_a","output_index":0,"delta":"{\"a\":","sequence_number":3}`,
		`{"type":"response.function_call_arguments.delta","item_id":"fc_b","output_index":1,"delta":"{\"b\":","sequence_number":4}`,
		`{"type":"response.function_call_arguments.delta","item_id":"fc_a","output_index":0,"delta":"1}","sequence_number":5}`,
		`{"type":"response.output_text.delta","item_id":"msg","output_index":2,"content_index":0,"delta":"text","sequence_number":6}`,
		`{"type":"response.function_call_arguments.delta","item_id":"fc_b","output_index":1,"delta":"2}","sequence_number":7}`,
		`{"type":"response.function_call_arguments.done","item_id":"fc_b","output_index":1,"arguments":"{\"b\":22}","sequence_number":8}`,
		`{"type":"response.completed","response":{"id":"r","status":"completed","output":[],"usage":{"input_tokens":1,"output_tokens":2,"total_tokens":3}},"sequence_number":9}`,
	))
	ch, err := provider.Stream(context.Background(), baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for c := range ch {
		switch c.Type {
		case llm.ChunkTool:
			got = append(got, c.CallID+":"+c.ToolName+string(c.ArgsJSON))
		case llm.ChunkText:
			got = append(got, "text:"+c.Delta)
		default:
			got = append(got, string(c.Type))
		}
	}
	want := `text:text c2:second{"b":22} c1:first{"a":1} usage`
	if strings.Join(got, " ") != want {
		t.Fatalf("chunks = %s, want %s", strings.Join(got, " "), want)
	}
}

// Some servers nest the error: {"type":"error","error":{...}}.
func TestResponsesNestedErrorEvent(t *testing.T) {
	provider := rawSSE(t, sse(
		`{"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"partial","sequence_number":1}`,
		`{"type":"error","error":{"type":"server_error","code":"server_error","message":"overloaded","param":null},"sequence_number":2}`,
	))
	ch, err := provider.Stream(context.Background(), baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	var chunks []llm.Chunk
	for c := range ch {
		chunks = append(chunks, c)
	}
	if summary(chunks) != "[text:partial][error]" {
		t.Fatalf("chunks = %s", summary(chunks))
	}
	var perr *llm.ProviderError
	if !errors.As(chunks[1].Err, &perr) || perr.Code != "server_error" || perr.Message != "overloaded" {
		t.Fatalf("error = %#v", chunks[1].Err)
	}
}
