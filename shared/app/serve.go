package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"
)

// Timeouts of the local server's connections. Streams have no write
// timeout: an answer may take as long as the model does.
const (
	// LocalReadHeaderTimeout bounds how long a client may take to send a
	// request's headers, so a slow client cannot hold a connection.
	LocalReadHeaderTimeout = 10 * time.Second
	// LocalIdleTimeout closes a keep-alive connection that carries no
	// request for this long.
	LocalIdleTimeout = 60 * time.Second
)

// connTimeouts are the timeouts a local server puts on its connections.
type connTimeouts struct{ readHeader, idle time.Duration }

// ServeLocal serves handler on 127.0.0.1:port until SIGINT/SIGTERM, then
// drains in-flight streams for up to 10 seconds.
func ServeLocal(handler http.Handler, port int, log *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return err
	}
	return serveLocal(ctx, ln, handler, connTimeouts{readHeader: LocalReadHeaderTimeout, idle: LocalIdleTimeout}, log)
}

// serveLocal serves handler on ln until ctx is done, then drains.
func serveLocal(ctx context.Context, ln net.Listener, handler http.Handler, timeouts connTimeouts, log *slog.Logger) error {
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: timeouts.readHeader, IdleTimeout: timeouts.idle}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info("chat API listening", "url", "http://"+ln.Addr().String(), "try", "curl -N -H 'Content-Type: application/json' -d '{\"message\":\"What is the VAT rate in Ireland?\"}' http://"+ln.Addr().String()+"/chat")
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
