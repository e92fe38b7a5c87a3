package dbsetup_test

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"regintel/shared/dbsetup"
	"regintel/shared/pgpool"
	"regintel/shared/pgpool/pgtest"
)

// refusingProxy speaks just enough of the Postgres protocol to refuse the
// first `refusals` sign-ins with SQLSTATE 28P01, as a server whose master
// password was just rotated does; later connections are piped to target.
type refusingProxy struct {
	ln       net.Listener
	target   string
	refusals atomic.Int32
	accepted atomic.Int32
	wg       sync.WaitGroup
}

func newRefusingProxy(t *testing.T, target string, refusals int32) *refusingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &refusingProxy{ln: ln, target: target}
	p.refusals.Store(refusals)
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.wg.Wait() })
	return p
}

func (p *refusingProxy) serve() {
	defer p.wg.Done()
	for {
		conn, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.accepted.Add(1)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer conn.Close()
			if p.refusals.Add(-1) >= 0 {
				refuse(conn)
				return
			}
			pipe(conn, p.target)
		}()
	}
}

// refuse reads the startup message (answering an SSL request with "no")
// and sends a FATAL invalid_password error, as Postgres does.
func refuse(conn net.Conn) {
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	for {
		var head [8]byte
		if _, err := io.ReadFull(conn, head[:]); err != nil {
			return
		}
		n := binary.BigEndian.Uint32(head[:4])
		if _, err := io.CopyN(io.Discard, conn, int64(n)-8); err != nil {
			return
		}
		if code := binary.BigEndian.Uint32(head[4:]); code == 80877103 || code == 80877104 { // SSL or GSS encryption request
			_, _ = conn.Write([]byte{'N'})
			continue
		}
		break
	}
	var fields []byte
	for _, f := range []struct {
		code byte
		val  string
	}{{'S', "FATAL"}, {'V', "FATAL"}, {'C', "28P01"}, {'M', `password authentication failed for user "regintel_admin"`}} {
		fields = append(append(append(fields, f.code), f.val...), 0)
	}
	fields = append(fields, 0)
	msg := []byte{'E', 0, 0, 0, 0}
	binary.BigEndian.PutUint32(msg[1:], uint32(4+len(fields)))
	_, _ = conn.Write(append(msg, fields...))
}

func pipe(conn net.Conn, target string) {
	up, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, conn); done <- struct{}{} }()
	go func() { _, _ = io.Copy(conn, up); done <- struct{}{} }()
	<-done
}

// through returns dbURL with its host replaced by the proxy's.
func through(t *testing.T, dbURL string, p *refusingProxy) (proxied, target string) {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	target = u.Host
	u.Host = p.ln.Addr().String()
	q := u.Query()
	q.Set("sslmode", "disable")
	u.RawQuery = q.Encode()
	return u.String(), target
}

// The first deploy: rotation changes the master password while migrate
// signs in. The refused sign-ins are retried, each with the secret read
// again, and the migrations then run through the real pgx client.
func TestSignInRetriesARefusedPasswordWithTheSecretReadAgain(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	u, _ := url.Parse(dbURL)
	p := newRefusingProxy(t, u.Host, 2)
	proxied, _ := through(t, dbURL, p)
	var reads atomic.Int32
	h := &dbsetup.Handler{
		SignIn: func(context.Context) (pgpool.Config, error) {
			reads.Add(1)
			return pgpool.Config{URL: proxied}, nil
		},
		SignInWait: 10 * time.Millisecond,
	}
	outcome, err := h.Run(context.Background())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(outcome.Applied) == 0 {
		t.Errorf("nothing applied: %+v", outcome)
	}
	if reads.Load() != 3 {
		t.Errorf("secret read %d times for 2 refusals, want 3 (once per attempt)", reads.Load())
	}
}

// The retries are bounded: a password that stays wrong fails the deploy.
func TestSignInGivesUpAfterTheLastAttempt(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	u, _ := url.Parse(dbURL)
	p := newRefusingProxy(t, u.Host, 100)
	proxied, _ := through(t, dbURL, p)
	h := &dbsetup.Handler{Database: pgpool.Config{URL: proxied}, SignInAttempts: 3, SignInWait: time.Millisecond}
	_, err := h.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "28P01") || !strings.Contains(err.Error(), "3 attempt") {
		t.Fatalf("err = %v, want the 28P01 refusal after 3 attempts", err)
	}
	if n := p.accepted.Load(); n != 3 {
		t.Errorf("%d connections, want 3", n)
	}
}
