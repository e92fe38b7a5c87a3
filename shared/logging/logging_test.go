package logging

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"regintel/shared/config"
)

func TestFormatAndLevel(t *testing.T) {
	var out bytes.Buffer
	log := newLogger(config.Log{Format: "json", Level: "warn"}, &out)
	log.Info("hidden")
	log.Warn("shown", "request_id", "r1")
	var line map[string]any
	if err := json.Unmarshal(out.Bytes(), &line); err != nil || line["msg"] != "shown" || line["request_id"] != "r1" {
		t.Fatalf("want one JSON line at warn, got %q (%v)", out.String(), err)
	}

	out.Reset()
	log = newLogger(config.Log{Format: "text", Level: "no-such-level"}, &out)
	log.Debug("hidden")
	log.Info("shown")
	if got := out.String(); strings.Contains(got, "hidden") || !strings.Contains(got, "msg=shown") {
		t.Fatalf("want text at info, got %q", got)
	}
}
