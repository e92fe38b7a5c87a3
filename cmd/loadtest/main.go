// Command loadtest drives a running chat server with concurrent turns for a
// bounded time and prints turns/s, time to first byte and errors, next to
// the server's /healthz request rate measured in the same run (the floor a
// turn is compared with). It talks to loopback only.
//
//	loadtest -url http://127.0.0.1:8080 -c 16 -d 10s -followups 1
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"
)

type options struct {
	base      string
	workers   int
	duration  time.Duration
	followups int
	label     string
	cpu       string // name=PID,... whose CPU time is reported per request
}

func main() {
	var o options
	flag.StringVar(&o.base, "url", "http://127.0.0.1:8080", "base URL of the chat server (loopback only)")
	flag.IntVar(&o.workers, "c", 16, "concurrent clients")
	flag.DurationVar(&o.duration, "d", 10*time.Second, "how long each phase (healthz, then chat) runs")
	flag.IntVar(&o.followups, "followups", 1, "follow-up turns after each new conversation")
	flag.StringVar(&o.label, "label", "", "name printed with the figures (e.g. the store)")
	flag.StringVar(&o.cpu, "cpu", "", "processes whose CPU per request to report, as name=PID,... (Linux /proc; children included)")
	flag.Parse()
	if err := run(o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

func run(o options, w io.Writer) error {
	if err := checkLoopback(o.base); err != nil {
		return err
	}
	if o.workers < 1 || o.duration <= 0 || o.followups < 0 {
		return errors.New("-c must be at least 1, -d positive and -followups not negative")
	}
	watch, err := parseWatched(o.cpu)
	if err != nil {
		return err
	}
	client := newClient(o.workers)
	before := cpuTimes(watch)
	health := drive(o.workers, o.duration, func(ctx context.Context, _ *session) sample {
		return getHealth(ctx, client, o.base)
	})
	between := cpuTimes(watch)
	chat := drive(o.workers, o.duration, func(ctx context.Context, s *session) sample {
		return s.turn(ctx, client, o.base, o.followups)
	})
	health.cpu = cpuPerRequest(before, between, len(health.ok()))
	chat.cpu = cpuPerRequest(between, cpuTimes(watch), len(chat.ok()))
	report(w, o, health, chat)
	return nil
}

// checkLoopback refuses any host but the loopback interface: this tool
// generates load, and must not be pointed at someone else's server.
func checkLoopback(base string) error {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" {
		return fmt.Errorf("-url %q: want http://127.0.0.1:PORT", base)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("-url %q: only loopback hosts are allowed", base)
}

func newClient(workers int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = workers * 2
	t.MaxIdleConnsPerHost = workers * 2
	t.Proxy = nil
	return &http.Client{Transport: t, Timeout: 30 * time.Second}
}

func getHealth(ctx context.Context, client *http.Client, base string) sample {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/healthz", nil)
	if err != nil {
		return sample{err: err}
	}
	resp, err := client.Do(req)
	if err != nil {
		return sample{err: err}
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("healthz: status %d", resp.StatusCode)
	}
	return sample{err: err, ttfb: time.Since(start)}
}
