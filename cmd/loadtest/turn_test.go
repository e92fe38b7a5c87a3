package main

import (
	"strings"
	"testing"
	"time"
)

func TestReadStream(t *testing.T) {
	long := strings.Repeat("x", 100<<10)
	for name, c := range map[string]struct {
		body    string
		wantErr string
		text    bool
	}{
		"answered":          {"event: start\ndata: {}\n\nevent: message\ndata: {\"text\":\"hi\"}\n\nevent: done\ndata: {\"status\":\"ok\"}\n\n", "", true},
		"long line":         {"event: message\ndata: " + long + "\n\nevent: done\ndata: {\"status\":\"ok\"}\n\n", "", true},
		"failed":            {"event: start\ndata: {}\n\nevent: done\ndata: {\"status\":\"error\"}\n\n", "done: ", false},
		"cut before done":   {"event: start\ndata: {}\n\nevent: message\ndata: {}\n\n", "without done", true},
		"keepalive comment": {": keepalive\n\nevent: done\ndata: {\"status\":\"ok\"}\n", "", false},
	} {
		t.Run(name, func(t *testing.T) {
			s := readStream(strings.NewReader(c.body), time.Now())
			if c.wantErr == "" && s.err != nil || c.wantErr != "" && (s.err == nil || !strings.Contains(s.err.Error(), c.wantErr)) {
				t.Fatalf("err = %v, want %q", s.err, c.wantErr)
			}
			if s.ttfb == 0 || (s.firstText != 0) != c.text {
				t.Fatalf("ttfb %v, first text %v (want text: %v)", s.ttfb, s.firstText, c.text)
			}
		})
	}
}
