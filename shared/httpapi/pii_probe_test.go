package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"regintel/shared/graph"
	"regintel/shared/llm/llmtest"
	"regintel/shared/pii/piicases"
)

// TestPersonalDataProbesReachNothing: for each probe of the shared table
// the user's message carries the value and the model captures a concept
// carrying it; afterwards no trace of it is in the graph, the stored
// conversation, the queue messages or the logs. Each probe runs on a
// server of its own, so a value one probe leaks is not charged to another
// probe of the same value.
func TestPersonalDataProbesReachNothing(t *testing.T) {
	reached := 0
	for _, tc := range piicases.All() {
		if where := probe(t, tc); len(where) > 0 {
			reached++
			t.Errorf("%s (%s) reached %v", tc.Name, tc.Technique, where)
		}
	}
	t.Logf("%d of %d probes reached the graph, the stored conversation, the queue or the logs", reached, len(piicases.All()))
}

// probe runs one turn carrying tc and returns the places its value reached.
func probe(t *testing.T, tc piicases.Case) []string {
	t.Helper()
	logs := &lockedBuffer{}
	e := newEnv(t, envOptions{log: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	e.llm.Enqueue(llmtest.Script{Steps: llmtest.Steps(llmtest.Words("Noted."),
		llmtest.ToolCallJSON("capture_concepts", captureArgs(vrtConcept(), captureOf(tc)), 2))})
	resp := e.chat(map[string]any{"message": "Please keep my details on file: " + tc.Text + " thanks"}, nil)
	if resp.Status != http.StatusOK || resp.doneStatus(t) != "ok" {
		t.Fatalf("%s: %d %s", tc.Name, resp.Status, resp.Body)
	}
	meta := resp.metadata(t)
	// The clean concept captured beside the probe (of another id, so
	// neither is merged into the other) proves the capture was read.
	if !slices.Contains(meta.ReferencedNodes, "TAX:IE:VRT") || len(e.llm.Requests()) != 1 {
		t.Fatalf("%s: referenced nodes %v after %d model requests", tc.Name, meta.ReferencedNodes, len(e.llm.Requests()))
	}
	places := map[string][]string{
		"graph":               graphStrings(t, e),
		"queue":               queueStrings(t, e),
		"logs":                logStrings(t, logs),
		"stored conversation": exportStrings(t, e, *meta.ConversationID),
	}
	if len(places["queue"]) == 0 || len(places["logs"]) == 0 {
		t.Fatalf("nothing to search: %d queue strings, %d log strings", len(places["queue"]), len(places["logs"]))
	}
	var where []string
	for place, texts := range places {
		if slices.ContainsFunc(texts, tc.Leaked) {
			where = append(where, place)
		}
	}
	slices.Sort(where)
	return where
}

// captureOf is the capture_concepts entry carrying the probe.
func captureOf(tc piicases.Case) map[string]any {
	c := tc.Concept()
	return map[string]any{"domain": c.Domain, "kind": c.Kind, "jurisdiction": c.Jurisdiction, "prefLabel": c.PrefLabel,
		"altLabels": c.AltLabels, "definition": c.Definition}
}

func graphStrings(t *testing.T, e *env) []string {
	t.Helper()
	changes, err := e.graph.Changes(context.Background(), graph.ChangeQuery{Limit: 100000})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range changes {
		out = append(out, stringsOf(t, c)...)
	}
	return out
}

func queueStrings(t *testing.T, e *env) []string {
	t.Helper()
	e.queue.mu.Lock()
	defer e.queue.mu.Unlock()
	var out []string
	for _, m := range e.queue.sent {
		out = append(out, stringsOf(t, m)...)
		out = append(out, stringsOf(t, m.Payload)...)
	}
	return out
}

func exportStrings(t *testing.T, e *env, conversationID string) []string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.server.URL+"/conversations/"+conversationID+"/export", nil)
	req.Header.Set("X-Tenant-Id", "tenant-a")
	resp := e.send(req)
	if resp.Status != http.StatusOK {
		t.Fatalf("export: %d %s", resp.Status, resp.Body)
	}
	return stringsOf(t, json.RawMessage(resp.Body))
}

func logStrings(t *testing.T, logs *lockedBuffer) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		out = append(out, stringsOf(t, json.RawMessage(sc.Bytes()))...)
	}
	return out
}

// stringsOf returns every string (keys included) in v's JSON form, decoded,
// so escapes cannot hide a value from the search.
func stringsOf(t *testing.T, v any) []string {
	t.Helper()
	raw, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("not JSON: %s", raw)
	}
	var out []string
	var walk func(any)
	walk = func(x any) {
		switch y := x.(type) {
		case string:
			out = append(out, y)
			// A string may itself be a JSON document (a payload).
			if strings.HasPrefix(y, "{") && json.Valid([]byte(y)) {
				out = append(out, stringsOf(t, json.RawMessage(y))...)
			}
		case []any:
			for _, z := range y {
				walk(z)
			}
		case map[string]any:
			for k, z := range y {
				out = append(out, k)
				walk(z)
			}
		}
	}
	walk(doc)
	return out
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
