package httpapi_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"regintel/shared/llm/llmtest"
)

// Each request's access log line names its status and the bytes of its
// body, the streamed ones included.
func TestAccessLogHasStatusAndBytes(t *testing.T) {
	logs := &lockedBuffer{}
	e := newEnv(t, envOptions{log: slog.New(slog.NewJSONHandler(logs, nil))})
	e.llm.Enqueue(llmtest.TextScript("Twenty-three percent."))
	turn := e.chat(map[string]any{"message": "What is the VAT rate?"}, nil)
	missing := e.post("/no-such-route", "application/json", "{}", nil)

	want := map[string]struct {
		status int
		bytes  int
	}{"/chat": {http.StatusOK, len(turn.Body)}, "/no-such-route": {missing.Status, len(missing.Body)}}
	seen := map[string]bool{}
	for line := range strings.SplitSeq(logs.String(), "\n") {
		var rec struct {
			Msg    string  `json:"msg"`
			Path   string  `json:"path"`
			Status int     `json:"status"`
			Bytes  float64 `json:"bytes"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil || rec.Msg != "request" {
			continue
		}
		w, ok := want[rec.Path]
		if !ok {
			continue
		}
		seen[rec.Path] = true
		if rec.Status != w.status || int(rec.Bytes) != w.bytes || w.bytes == 0 {
			t.Errorf("%s logged status %d, %v bytes; the client got %d, %d bytes", rec.Path, rec.Status, rec.Bytes, w.status, w.bytes)
		}
	}
	if len(seen) != len(want) {
		t.Fatalf("access log lines for %v of %d routes:\n%s", seen, len(want), logs.String())
	}
}
