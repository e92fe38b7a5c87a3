package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
)

// Turn is what a user got for one question: the answer, and the turn's
// as-of date and citations from the stream's metadata event.
type Turn struct {
	Answer    string     `json:"answer"`
	AsOf      *TurnAsOf  `json:"asOf"` // nil when the stream carried none
	Citations []Citation `json:"citations"`
}

// TurnAsOf is the metadata's asOf.
type TurnAsOf struct {
	Date   string `json:"date"`
	Source string `json:"source"`
	Phrase string `json:"phrase,omitempty"`
}

// Citation is one citation of the metadata.
type Citation struct {
	NodeID    string   `json:"nodeId"`
	Label     string   `json:"label"`
	Value     *float64 `json:"value"`
	Unit      string   `json:"unit,omitempty"`
	ValidFrom *string  `json:"validFrom"`
	ValidTo   *string  `json:"validTo"`
	Status    string   `json:"status,omitempty"`
	URL       string   `json:"url,omitempty"`
	// Confidence is "corroborated" for a value no official page states.
	Confidence string `json:"confidence,omitempty"`
}

// Client asks the chat route of a handler, as a local caller (dev
// authentication's tenant and user headers).
type Client struct {
	Handler http.Handler
}

func (c Client) do(req *http.Request) *httptest.ResponseRecorder {
	req.Header.Set("X-Tenant-Id", Tenant)
	req.Header.Set("X-User-Id", "eval")
	rec := httptest.NewRecorder()
	c.Handler.ServeHTTP(rec, req)
	return rec
}

// Ask sends the item's question to POST /chat, as a new conversation with
// the item's jurisdictions (and asOf, when it has one), and reads the
// stream.
func (c Client) Ask(ctx context.Context, it Item) (Turn, error) {
	body := map[string]any{"message": it.Question, "profile": map[string]any{"jurisdictions": it.Jurisdictions}}
	if it.AsOf != "" {
		body["asOf"] = it.AsOf
	}
	raw, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "/chat", bytes.NewReader(raw))
	if err != nil {
		return Turn{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	rec := c.do(req)
	if rec.Code != http.StatusOK {
		return Turn{}, fmt.Errorf("POST /chat: %d %s", rec.Code, strings.TrimSpace(rec.Body.String()))
	}
	return readStream(rec.Body.String())
}

// readStream collects the answer's text and the metadata event of an SSE
// chat stream.
func readStream(body string) (Turn, error) {
	var t Turn
	var event string
	metadata := false
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && event == "message":
			var m struct{ Text string }
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m); err != nil {
				return Turn{}, fmt.Errorf("message event: %w", err)
			}
			t.Answer += m.Text
		case strings.HasPrefix(line, "data: ") && event == "metadata":
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &t); err != nil {
				return Turn{}, fmt.Errorf("metadata event: %w", err)
			}
			metadata = true
		}
	}
	if !metadata {
		return Turn{}, fmt.Errorf("the stream has no metadata event")
	}
	return t, nil
}

// Node is a graph node as GET /graph/nodes returns it.
type Node struct {
	ID         string         `json:"id"`
	Properties map[string]any `json:"properties"`
}

// maxLookupIDs stays under the route's bound on ids per request.
const maxLookupIDs = 50

// Nodes looks ids up through GET /graph/nodes; missing ids are absent.
func (c Client) Nodes(ctx context.Context, ids []string) (map[string]Node, error) {
	out := map[string]Node{}
	for start := 0; start < len(ids); start += maxLookupIDs {
		batch := ids[start:min(start+maxLookupIDs, len(ids))]
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "/graph/nodes?ids="+url.QueryEscape(strings.Join(batch, ",")), nil)
		if err != nil {
			return nil, err
		}
		rec := c.do(req)
		if rec.Code != http.StatusOK {
			return nil, fmt.Errorf("GET /graph/nodes: %d %s", rec.Code, strings.TrimSpace(rec.Body.String()))
		}
		var page struct{ Nodes []Node }
		if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
			return nil, fmt.Errorf("GET /graph/nodes: %w", err)
		}
		for _, n := range page.Nodes {
			out[n.ID] = n
		}
	}
	return out, nil
}
