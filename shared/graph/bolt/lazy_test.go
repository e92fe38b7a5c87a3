package bolt

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// closedAddr is a loopback port nobody listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// A process opens the graph with the server down: Open does not touch the
// network, and calls fail (for the caller to degrade) until it answers.
func TestOpenWithTheServerDownFailsOnlyOnUse(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	start := time.Now()
	s, err := Open(ctx, Config{URI: "bolt://" + closedAddr(t)})
	if err != nil {
		t.Fatalf("open with the server down: %v", err)
	}
	defer s.Close(ctx)
	if took := time.Since(start); took > time.Second {
		t.Errorf("open took %s: it must not wait for the server", took)
	}
	if s.Dialect() != "" {
		t.Errorf("dialect %q known before any contact", s.Dialect())
	}
	if err := s.Ping(ctx); err == nil {
		t.Error("ping succeeded with no server")
	}
	if err := s.ApplySchema(ctx); err == nil || !strings.Contains(err.Error(), "connect") {
		t.Errorf("schema with no server: err = %v", err)
	}
}

func TestConfiguredDialectNeedsNoServer(t *testing.T) {
	s, err := Open(context.Background(), Config{URI: "bolt+s://" + closedAddr(t), Dialect: Memgraph})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	if s.Dialect() != Memgraph {
		t.Errorf("dialect %q, want the configured memgraph", s.Dialect())
	}
}

func TestBadURIFailsAtOpen(t *testing.T) {
	if _, err := Open(context.Background(), Config{URI: "http://graph:7687"}); err == nil {
		t.Error("an http:// URI was accepted")
	}
}
