// Package apitest holds the server to its OpenAPI document (api/openapi.yaml)
// in tests: every exchange through Checked is sent to the contract checker,
// which validates it with kin-openapi and records which operations, events
// and chunks were seen. The checker is a module of its own (api/contract),
// like the Lambda emulator (tools/rie), so kin-openapi and its YAML stay
// out of this module's graph; it is built and started once per test
// binary. With -short nothing is checked: the inner loop builds no binary.
package apitest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Exchange is one request and its response, as the checker reads it.
type Exchange struct {
	Method     string      `json:"method"`
	Host       string      `json:"host"`
	Target     string      `json:"target"` // path and query
	Header     http.Header `json:"header"`
	Body       []byte      `json:"body"`
	Status     int         `json:"status"`
	RespHeader http.Header `json:"respHeader"`
	RespBody   []byte      `json:"respBody"`
}

// Request is one line to the checker: an exchange to validate, or the
// question which expected keys no exchange has shown yet.
type Request struct {
	Exchange *Exchange `json:"exchange,omitempty"`
	Unseen   bool      `json:"unseen,omitempty"`
}

// Reply is the checker's answer to one Request.
type Reply struct {
	Problems []string `json:"problems,omitempty"`
	Unseen   []string `json:"unseen,omitempty"`
	Err      string   `json:"err,omitempty"`
}

// Checker is a running contract checker.
type Checker struct {
	mu  sync.Mutex
	enc *json.Encoder
	dec *json.Decoder
}

var (
	startOnce sync.Once
	running   *Checker
	startErr  error
)

// Start returns the test binary's checker, building and starting it on
// first use. It exits when the test binary does (its stdin closes).
func Start() (*Checker, error) {
	startOnce.Do(func() { running, startErr = start() })
	return running, startErr
}

func start() (*Checker, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOMOD: %w", err)
	}
	dir, err := os.MkdirTemp("", "contractcheck")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir) // the started process keeps its executable
	bin := filepath.Join(dir, "contractcheck")
	build := exec.Command("go", "build", "-o", bin, "./cmd/contractcheck")
	build.Dir = filepath.Join(filepath.Dir(strings.TrimSpace(string(gomod))), "api", "contract")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build the contract checker: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Checker{enc: json.NewEncoder(in), dec: json.NewDecoder(bufio.NewReader(out))}, nil
}

// MustStart is Start failing t.
func MustStart(t testing.TB) *Checker {
	t.Helper()
	c, err := Start()
	if err != nil {
		t.Fatalf("contract checker: %v", err)
	}
	return c
}

func (c *Checker) ask(req Request) (Reply, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var reply Reply
	if err := c.enc.Encode(req); err != nil {
		return reply, fmt.Errorf("contract checker: %w", err)
	}
	if err := c.dec.Decode(&reply); err != nil {
		return reply, fmt.Errorf("contract checker: %w", err)
	}
	if reply.Err != "" {
		return reply, errors.New(reply.Err)
	}
	return reply, nil
}

// Check validates one exchange and returns what disagrees with the document.
func (c *Checker) Check(x Exchange) ([]string, error) {
	reply, err := c.ask(Request{Exchange: &x})
	return reply.Problems, err
}

// Unseen lists the operations, events and chunks the document has that no
// checked exchange showed (the compatibility routes and changing stream
// parts aside).
func (c *Checker) Unseen() ([]string, error) {
	reply, err := c.ask(Request{Unseen: true})
	return reply.Unseen, err
}

// recordingWriter keeps a copy of the response while passing every write
// and flush through, so streams stay incremental.
type recordingWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *recordingWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

type readCloser struct {
	io.Reader
	io.Closer
}

// Checked wraps next so every exchange is validated against the document;
// a mismatch fails t. With -short it returns next unchanged.
func Checked(t testing.TB, next http.Handler) http.Handler {
	if testing.Short() {
		return next
	}
	c := MustStart(t)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The body is copied as the handler reads it, not before: a slow
		// body must reach the handler's read deadline. The handler gets a
		// copy of the request, so the server still sees its own body.
		var raw bytes.Buffer
		served := *r
		served.Body = readCloser{io.TeeReader(r.Body, &raw), r.Body}
		rec := &recordingWriter{ResponseWriter: w}
		next.ServeHTTP(rec, &served)
		if rec.status < 400 {
			_, _ = io.Copy(&raw, r.Body) // an accepted request is validated whole
		}
		body := rec.body.Bytes()
		if r.Context().Err() != nil && strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
			body = completeFrames(body) // the client left, maybe mid-frame
		}
		problems, err := c.Check(Exchange{
			Method: r.Method, Host: r.Host, Target: r.URL.RequestURI(), Header: r.Header, Body: raw.Bytes(),
			Status: rec.status, RespHeader: rec.Header(), RespBody: body,
		})
		if err != nil {
			problems = append(problems, err.Error())
		}
		for _, problem := range problems {
			t.Errorf("contract: %s %s → %d: %s", r.Method, r.URL.Path, rec.status, problem)
		}
	})
}

// completeFrames drops an unterminated last frame.
func completeFrames(stream []byte) []byte {
	end := bytes.LastIndex(stream, []byte("\n\n"))
	if end < 0 {
		return nil
	}
	return stream[:end+2]
}

// Frame is one server-sent event.
type Frame struct{ ID, Event, Data string }

// ParseFrame reads one event's lines (without the blank line ending it).
func ParseFrame(raw string) Frame {
	var f Frame
	for _, line := range strings.Split(raw, "\n") {
		if v, ok := strings.CutPrefix(line, "id: "); ok {
			f.ID = v
		} else if v, ok := strings.CutPrefix(line, "event: "); ok {
			f.Event = v
		} else if v, ok := strings.CutPrefix(line, "data: "); ok {
			f.Data = v
		}
	}
	return f
}
