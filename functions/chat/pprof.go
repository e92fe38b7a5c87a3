//go:build pprof

// Profiling for `make loadtest`: a binary built with -tags pprof serves
// net/http/pprof on 127.0.0.1:$PPROF_PORT (default 6060). The Lambda build
// (`make build`) never has this tag.
package main

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
)

func init() {
	port := os.Getenv("PPROF_PORT")
	if port == "" {
		port = "6060"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		slog.Error("pprof: listen", "err", err)
		return
	}
	go func() { _ = http.Serve(ln, mux) }()
}
