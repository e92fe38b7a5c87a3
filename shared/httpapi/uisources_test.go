package httpapi_test

import (
	"encoding/json"
	"slices"
	"testing"

	"regintel/shared/conversation"
	"regintel/shared/llm/llmtest"
)

// Every citation with a source also goes out as the SDK's source-url
// chunk, before finish: its node id, url and label, in citation order.
func TestUIStreamSendsACitationsSourcesAsSourceURLChunks(t *testing.T) {
	e, _ := newDatingEnv(t, nil)
	e.llm.Enqueue(llmtest.TextScript("The standard rate is 23%."))
	body := `{"messages": [{"role": "user", "parts": [{"type": "text", "text": "What is the Irish VAT rate?"}]}], "profile": {"personaType": "", "jurisdictions": ["IE"]}}`
	resp := e.post("/chat?protocol=ui-message-stream", "application/json", body, nil)
	if resp.Status != 200 {
		t.Fatalf("status %d: %s", resp.Status, resp.Body)
	}
	chunks := uiStream(t, resp.Body)
	var citations []conversation.Citation
	for _, raw := range uiChunks(t, resp.Body) {
		var finish struct {
			Type            string `json:"type"`
			MessageMetadata struct {
				Citations []conversation.Citation `json:"citations"`
			} `json:"messageMetadata"`
		}
		if json.Unmarshal([]byte(raw), &finish) == nil && finish.Type == "finish" {
			citations = finish.MessageMetadata.Citations
		}
	}
	type source struct{ Type, SourceID, URL, Title string }
	var want []source
	for _, c := range citations {
		if c.URL != "" {
			want = append(want, source{Type: "source-url", SourceID: c.NodeID, URL: c.URL, Title: c.Label})
		}
	}
	if len(want) == 0 {
		t.Fatalf("the answer cites no fact with a source; the test needs one: %+v", citations)
	}
	var got []source
	finishAt := slices.IndexFunc(chunks, func(c uiChunk) bool { return c.Type == "finish" })
	for i, c := range chunks {
		if c.Type != "source-url" {
			continue
		}
		if i > finishAt {
			t.Fatalf("source-url chunk %d comes after finish (%d): %v", i, finishAt, chunkTypes(chunks))
		}
		got = append(got, source{Type: c.Type, SourceID: c.SourceID, URL: c.URL, Title: c.Title})
	}
	if !slices.Equal(got, want) {
		t.Fatalf("source-url chunks\n got %+v\nwant %+v", got, want)
	}
}
