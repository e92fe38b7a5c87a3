package main

import (
	"bytes"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestParseWatched(t *testing.T) {
	ws, err := parseWatched("server=12,postgres=34")
	if err != nil || len(ws) != 2 || ws[0] != (watched{"server", 12}) || ws[1] != (watched{"postgres", 34}) {
		t.Fatalf("got %v, %v", ws, err)
	}
	for _, bad := range []string{"server", "=12", "server=x", "server=-1"} {
		if _, err := parseWatched(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The accounting reads real /proc figures: a child's CPU is counted under
// its parent, and this process's own under the load generator.
func TestCPUTimesCountChildren(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("CPU accounting reads Linux /proc")
	}
	// The parent shell only waits; the busy loop runs in its child.
	child := exec.Command("sh", "-c", "(i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; sleep 5) & wait")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	shell := watched{"shell", child.Process.Pid}
	// The child's busy loop must show up under the parent.
	var got map[string]time.Duration
	for range 100 {
		got = cpuTimes([]watched{shell})
		if got["shell"] > 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got["shell"] <= 0 {
		t.Fatalf("no CPU counted for the busy child: %v", got)
	}
	if _, ok := got["load generator"]; !ok {
		t.Fatalf("no figure for this process: %v", got)
	}
	if cpuTimes([]watched{{"gone", 1 << 30}}) != nil {
		t.Fatal("a missing process gave figures")
	}
}

func TestReportPrintsCPUPerRequest(t *testing.T) {
	var b bytes.Buffer
	reportCPU(&b, map[string]time.Duration{"server": 20 * time.Microsecond}, map[string]time.Duration{
		"server": 1000 * time.Microsecond, "postgres": 700 * time.Microsecond})
	out := b.String()
	for _, want := range []string{"CPU per turn", "postgres 700 µs", "server 1000 µs", "a turn costs 50 healthz requests"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
