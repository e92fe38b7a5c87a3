package app

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// startLocal serves a handler that answers "ok" with the given timeouts
// and returns its address.
func startLocal(t *testing.T, timeouts connTimeouts) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	go func() { done <- serveLocal(ctx, ln, handler, timeouts, quiet()) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return ln.Addr().String()
}

// closedWithin reports whether the server closes conn within d.
func closedWithin(conn net.Conn, d time.Duration) bool {
	_ = conn.SetReadDeadline(time.Now().Add(d))
	_, err := conn.Read(make([]byte, 1))
	return errors.Is(err, io.EOF)
}

// A keep-alive connection that carries no request for the idle timeout is
// closed by the server; before that it stays open for the next request.
func TestLocalServerClosesIdleKeepAliveConnections(t *testing.T) {
	const idle = 300 * time.Millisecond
	addr := startLocal(t, connTimeouts{readHeader: 5 * time.Second, idle: idle})
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: local\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("keep-alive request: %v %v", resp, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	if closedWithin(conn, idle/3) {
		t.Fatal("the connection was closed before it was idle for the timeout")
	}
	if !closedWithin(conn, 10*idle) {
		t.Errorf("the idle keep-alive connection was still open after %s (idle timeout %s)", 10*idle+idle/3, idle)
	}
}

// A client that never finishes its headers is cut off.
func TestLocalServerClosesSlowHeaders(t *testing.T) {
	const readHeader = 300 * time.Millisecond
	addr := startLocal(t, connTimeouts{readHeader: readHeader, idle: time.Minute})
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: local\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * readHeader))
	body, err := io.ReadAll(conn)
	if err != nil {
		t.Errorf("a request whose headers never ended was still open after %s: %v (read %q)", 10*readHeader, err, body)
	}
}
