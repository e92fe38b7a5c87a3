package fetch_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"regintel/shared/fetch"
	"regintel/shared/sources"
)

// fakeDNS maps test names to addresses; the .test TLD never resolves for
// real, so nothing here can leave the machine.
type fakeDNS map[string][]string

func (d fakeDNS) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	addrs, ok := d[strings.TrimSuffix(strings.ToLower(host), ".")]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []net.IPAddr
	for _, a := range addrs {
		out = append(out, net.IPAddr{IP: net.ParseIP(a)})
	}
	return out, nil
}

// site is a local server playing an official site; hits counts every request
// it received, so refusals can be shown to have sent nothing.
type site struct {
	*httptest.Server
	hits atomic.Int32
	port string
}

var (
	certOnce sync.Once
	testCert tls.Certificate
)

// officialCert is a self-signed certificate for official.test and its
// subdomains, so TLS verification by name stays on in the tests.
func officialCert(t *testing.T) tls.Certificate {
	t.Helper()
	certOnce.Do(func() {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl := &x509.Certificate{
			SerialNumber:          big.NewInt(1),
			Subject:               pkix.Name{CommonName: "official.test"},
			DNSNames:              []string{"official.test", "*.official.test", "evil.test"},
			NotBefore:             time.Unix(0, 0),
			NotAfter:              time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC),
			KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
			ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			IsCA:                  true,
			BasicConstraintsValid: true,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			t.Fatal(err)
		}
		testCert = tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	})
	return testCert
}

func newSite(t *testing.T, useTLS bool, h http.HandlerFunc) *site {
	t.Helper()
	s := &site{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	}))
	// Refused handshakes are expected in some tests; keep the log quiet.
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	if useTLS {
		s.TLS = &tls.Config{Certificates: []tls.Certificate{officialCert(t)}}
		s.StartTLS()
	} else {
		s.Start()
	}
	t.Cleanup(s.Close)
	u, _ := url.Parse(s.URL)
	s.port = u.Port()
	return s
}

// rootCAs is the pool the server's own client trusts.
func (s *site) rootCAs() *x509.CertPool {
	return s.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
}

// dialLog records every address the fetcher dials and refuses anything but
// loopback, so a broken policy fails the test instead of reaching a real
// network.
type dialLog struct {
	mu    sync.Mutex
	addrs []string
}

func (d *dialLog) guard(addr string) error {
	d.mu.Lock()
	d.addrs = append(d.addrs, addr)
	d.mu.Unlock()
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().Unmap().IsLoopback() {
		return fmt.Errorf("test guard: refusing to dial %s", addr)
	}
	return nil
}

func (d *dialLog) dialled() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.addrs)
}

var testDNS = fakeDNS{
	"official.test":          {"127.0.0.1"},
	"www.official.test":      {"127.0.0.1"},
	"evil.test":              {"127.0.0.1"},
	"metadata.official.test": {"169.254.169.254"},
	"private.official.test":  {"10.0.0.7"},
	"cgnat.official.test":    {"100.64.12.1"},
	"ula.official.test":      {"fd12:3456::1"},
	"mapped.official.test":   {"::ffff:127.0.0.1"},
	"mixed.official.test":    {"10.1.2.3", "169.254.169.254", "127.0.0.1"},
	"public.official.test":   {"93.184.215.14"},
}

// newFetcher builds a fetcher whose allowlist is the official catalog plus
// the given test hosts, resolving names through testDNS.
func newFetcher(t *testing.T, cfg fetch.Config, testHosts ...string) (*fetch.Fetcher, *dialLog) {
	t.Helper()
	catalog, err := sources.New(sources.Options{ExtraHostsForTests: testHosts})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Allowlist = catalog
	if cfg.Resolver == nil {
		cfg.Resolver = testDNS
	}
	f := fetch.New(cfg)
	log := &dialLog{}
	fetch.GuardDials(f, log.guard)
	return f, log
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFetchesAnAllowlistedPageOverTLS(t *testing.T) {
	page := readFixture(t, "../../extract/testdata/revenue-vat-rates.html") // the extract fixture: one realistic page for both
	s := newSite(t, true, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/en/vat/vat-rates/index.aspx" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	})
	f, dials := newFetcher(t, fetch.Config{RootCAs: s.rootCAs(), AllowLoopbackForTests: true}, "official.test:"+s.port)

	start := time.Now().UTC()
	doc, err := f.Fetch(context.Background(), "https://www.official.test:"+s.port+"/en/vat/vat-rates/index.aspx")
	if err != nil {
		t.Fatal(err)
	}
	if doc.URL != "https://www.official.test:"+s.port+"/en/vat/vat-rates/index.aspx" ||
		doc.ContentType != "text/html; charset=utf-8" || doc.MediaType() != "text/html" || !bytes.Equal(doc.Body, page) {
		t.Errorf("document = %s %q %d bytes", doc.URL, doc.ContentType, len(doc.Body))
	}
	if doc.FetchedAt.Before(start) || doc.FetchedAt.Location() != time.UTC {
		t.Errorf("FetchedAt = %v", doc.FetchedAt)
	}
	if got := dials.dialled(); !slices.Equal(got, []string{"127.0.0.1:" + s.port}) {
		t.Errorf("dialled %v", got)
	}
}

func TestRefusesBeforeSendingAnything(t *testing.T) {
	tlsSite := newSite(t, true, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "should never be served")
	})
	plainSite := newSite(t, false, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "should never be served")
	})
	port := tlsSite.port
	allowed := []string{"official.test:" + port, "official.test:" + plainSite.port}

	cases := []struct {
		name     string
		url      string
		loopback bool
	}{
		{"host not on the allowlist", "https://evil.test:" + port + "/", true},
		{"IP literal not on the allowlist", "https://127.0.0.1:" + port + "/", true},
		{"http without the test option", "http://official.test:" + plainSite.port + "/", true},
		{"file scheme", "file:///etc/passwd", true},
		{"ftp scheme", "ftp://official.test:" + port + "/", true},
		{"gopher scheme", "gopher://official.test:" + port + "/", true},
		{"credentials in the URL", "https://user:secret@official.test:" + port + "/", true},
		{"port not on the allowlist", "https://official.test:1/", true},
		{"host resolving to 127.0.0.1 without the loopback option", "https://official.test:" + port + "/", false},
		{"host resolving to IPv4-mapped loopback", "https://mapped.official.test:" + port + "/", false},
		{"host resolving to 169.254.169.254", "https://metadata.official.test:" + port + "/latest/meta-data/", true},
		{"host resolving to a private address", "https://private.official.test:" + port + "/", true},
		{"host resolving to carrier-grade NAT", "https://cgnat.official.test:" + port + "/", true},
		{"host resolving to a unique local IPv6 address", "https://ula.official.test:" + port + "/", true},
		{"unresolvable host", "https://nowhere.official.test:" + port + "/", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, dials := newFetcher(t, fetch.Config{RootCAs: tlsSite.rootCAs(), AllowLoopbackForTests: c.loopback}, allowed...)
			before := tlsSite.hits.Load() + plainSite.hits.Load()
			_, err := f.Fetch(context.Background(), c.url)
			if err == nil {
				t.Fatal("fetch succeeded")
			}
			if c.name != "unresolvable host" && !errors.Is(err, fetch.ErrBlocked) {
				t.Errorf("error %v is not ErrBlocked", err)
			}
			if c.name != "unresolvable host" && !fetch.IsPermanent(err) {
				t.Errorf("refusal %v is not permanent", err)
			}
			if after := tlsSite.hits.Load() + plainSite.hits.Load(); after != before {
				t.Errorf("server received %d requests", after-before)
			}
			if got := dials.dialled(); len(got) != 0 {
				t.Errorf("dialled %v", got)
			}
		})
	}
}

func TestEveryResolvedAddressIsChecked(t *testing.T) {
	s := newSite(t, true, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "ok")
	})
	// A name answering with internal addresses first and loopback last:
	// only loopback, allowed by the test option, may be dialled.
	f, dials := newFetcher(t, fetch.Config{RootCAs: s.rootCAs(), AllowLoopbackForTests: true}, "official.test:"+s.port)
	if _, err := f.Fetch(context.Background(), "https://mixed.official.test:"+s.port+"/"); err != nil {
		t.Fatal(err)
	}
	if got := dials.dialled(); !slices.Equal(got, []string{"127.0.0.1:" + s.port}) {
		t.Errorf("dialled %v", got)
	}

	// A public address passes the policy (the test guard stops the actual
	// dial), proving the policy is not simply "loopback only".
	f, dials = newFetcher(t, fetch.Config{RootCAs: s.rootCAs()}, "official.test:"+s.port)
	_, err := f.Fetch(context.Background(), "https://public.official.test:"+s.port+"/")
	if err == nil || errors.Is(err, fetch.ErrBlocked) {
		t.Errorf("public address: err = %v, want the test guard's refusal", err)
	}
	if got := dials.dialled(); !slices.Equal(got, []string{"93.184.215.14:" + s.port}) {
		t.Errorf("dialled %v", got)
	}
}

func TestConnectTimeCheckStopsTheSocketConnecting(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	f := fetch.New(fetch.Config{Allowlist: allowNothing{}})
	dialer := net.Dialer{Control: fetch.ConnectControl(f)}
	if conn, err := dialer.Dial("tcp", ln.Addr().String()); err == nil {
		conn.Close()
		t.Fatal("connect-time check let a loopback connection through")
	} else if !errors.Is(err, fetch.ErrBlocked) {
		t.Errorf("error %v is not ErrBlocked", err)
	}
	// The next connection in the accept queue must be this plain one: the
	// refused dial never reached connect().
	plain, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	accepted, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer accepted.Close()
	if accepted.RemoteAddr().String() != plain.LocalAddr().String() {
		t.Errorf("first accepted connection came from %s, not the plain dial %s", accepted.RemoteAddr(), plain.LocalAddr())
	}
}

type allowNothing struct{}

func (allowNothing) Allows(*url.URL) bool { return false }

// redirectSites are the official site, whose paths redirect as named, and
// the two sites it redirects to: another host, and plain HTTP.
type redirectSites struct {
	official, evil, plain *site
	hosts                 []string
}

func newRedirectSites(t *testing.T) redirectSites {
	t.Helper()
	text := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, body)
		}
	}
	rs := redirectSites{evil: newSite(t, true, text("evil")), plain: newSite(t, false, text("plain"))}
	var port string
	rs.official = newSite(t, true, func(w http.ResponseWriter, r *http.Request) {
		officialRedirect(w, r, port, rs.evil.port, rs.plain.port)
	})
	port = rs.official.port
	rs.hosts = []string{"official.test:" + port, "official.test:" + rs.plain.port}
	return rs
}

// officialRedirect serves the official site on port: a page, redirects
// to each kind of refused target, and /hop/n, n redirects from a page.
func officialRedirect(w http.ResponseWriter, r *http.Request, port, evilPort, plainPort string) {
	base := "https://official.test:" + port
	switch {
	case r.URL.Path == "/moved":
		http.Redirect(w, r, base+"/en/vat/", http.StatusMovedPermanently)
	case r.URL.Path == "/en/vat/":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<p>VAT</p>")
	case r.URL.Path == "/to-evil":
		http.Redirect(w, r, "https://evil.test:"+evilPort+"/", http.StatusFound)
	case r.URL.Path == "/to-http":
		http.Redirect(w, r, "http://official.test:"+plainPort+"/", http.StatusFound)
	case r.URL.Path == "/to-metadata":
		http.Redirect(w, r, "https://metadata.official.test:"+port+"/latest/meta-data/iam/", http.StatusFound)
	case r.URL.Path == "/to-private":
		http.Redirect(w, r, "https://private.official.test:"+port+"/", http.StatusTemporaryRedirect)
	case r.URL.Path == "/to-file":
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	case strings.HasPrefix(r.URL.Path, "/hop/"):
		var n int
		fmt.Sscanf(r.URL.Path, "/hop/%d", &n)
		if n == 0 {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "arrived")
			return
		}
		http.Redirect(w, r, fmt.Sprintf("%s/hop/%d", base, n-1), http.StatusFound)
	default:
		http.NotFound(w, r)
	}
}

// fetch fetches path from the official site with a fresh fetcher.
func (rs redirectSites) fetch(t *testing.T, path string) (fetch.Document, []string, error) {
	t.Helper()
	f, dials := newFetcher(t, fetch.Config{RootCAs: rs.official.rootCAs(), AllowLoopbackForTests: true}, rs.hosts...)
	doc, err := f.Fetch(context.Background(), "https://official.test:"+rs.official.port+path)
	return doc, dials.dialled(), err
}

func TestRedirects(t *testing.T) {
	rs := newRedirectSites(t)
	official, port := rs.official, rs.official.port

	t.Run("allowlisted target is followed", func(t *testing.T) {
		doc, _, err := rs.fetch(t, "/moved")
		if err != nil || doc.URL != "https://official.test:"+port+"/en/vat/" || string(doc.Body) != "<p>VAT</p>" {
			t.Fatalf("doc = %+v, err = %v", doc, err)
		}
	})

	refused := map[string]*site{"/to-evil": rs.evil, "/to-http": rs.plain, "/to-metadata": nil, "/to-private": nil, "/to-file": nil}
	for path, target := range refused {
		t.Run("refused "+path, func(t *testing.T) {
			before := official.hits.Load()
			_, dialled, err := rs.fetch(t, path)
			if !errors.Is(err, fetch.ErrBlocked) {
				t.Fatalf("err = %v, want ErrBlocked", err)
			}
			if got := official.hits.Load() - before; got != 1 {
				t.Errorf("official site hits = %d, want 1", got)
			}
			if target != nil && target.hits.Load() != 0 {
				t.Errorf("redirect target received %d requests", target.hits.Load())
			}
			for _, addr := range dialled {
				if !strings.HasPrefix(addr, "127.0.0.1:") {
					t.Errorf("dialled %s", addr)
				}
			}
		})
	}

	t.Run("three redirects are followed", func(t *testing.T) {
		doc, _, err := rs.fetch(t, "/hop/3")
		if err != nil || string(doc.Body) != "arrived" {
			t.Fatalf("doc = %q, err = %v", doc.Body, err)
		}
	})
	t.Run("a fourth redirect is refused", func(t *testing.T) {
		before := official.hits.Load()
		_, _, err := rs.fetch(t, "/hop/4")
		if !errors.Is(err, fetch.ErrTooManyRedirects) || !fetch.IsPermanent(err) {
			t.Fatalf("err = %v, want ErrTooManyRedirects", err)
		}
		if got := official.hits.Load() - before; got != 4 {
			t.Errorf("requests = %d, want 4 (the original and 3 redirects)", got)
		}
	})
}

func TestSizeCap(t *testing.T) {
	const limit = 1024
	s := newSite(t, true, func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Query().Get("n"), "%d", &n)
		w.Header().Set("Content-Type", "text/plain")
		if r.URL.Query().Get("chunked") == "" {
			w.Header().Set("Content-Length", fmt.Sprint(n))
		} else {
			w.(http.Flusher).Flush() // no Content-Length: the cap must hold while reading
		}
		w.Write(bytes.Repeat([]byte("a"), n))
	})
	for _, chunked := range []string{"", "1"} {
		f, _ := newFetcher(t, fetch.Config{RootCAs: s.rootCAs(), AllowLoopbackForTests: true, MaxBytes: limit}, "official.test:"+s.port)
		doc, err := f.Fetch(context.Background(), fmt.Sprintf("https://official.test:%s/?n=%d&chunked=%s", s.port, limit, chunked))
		if err != nil || len(doc.Body) != limit {
			t.Errorf("chunked=%q at the limit: %d bytes, err %v", chunked, len(doc.Body), err)
		}
		_, err = f.Fetch(context.Background(), fmt.Sprintf("https://official.test:%s/?n=%d&chunked=%s", s.port, limit+1, chunked))
		if !errors.Is(err, fetch.ErrTooLarge) || !fetch.IsPermanent(err) {
			t.Errorf("chunked=%q over the limit: err = %v, want ErrTooLarge", chunked, err)
		}
	}

	// The default cap is 2 MiB.
	f, _ := newFetcher(t, fetch.Config{RootCAs: s.rootCAs(), AllowLoopbackForTests: true}, "official.test:"+s.port)
	if _, err := f.Fetch(context.Background(), fmt.Sprintf("https://official.test:%s/?n=%d&chunked=1", s.port, 2<<20)); err != nil {
		t.Errorf("2 MiB: %v", err)
	}
	if _, err := f.Fetch(context.Background(), fmt.Sprintf("https://official.test:%s/?n=%d&chunked=1", s.port, 2<<20+1)); !errors.Is(err, fetch.ErrTooLarge) {
		t.Errorf("2 MiB + 1: err = %v, want ErrTooLarge", err)
	}
}

func TestContentTypes(t *testing.T) {
	s := newSite(t, true, func(w http.ResponseWriter, r *http.Request) {
		if ct := r.URL.Query().Get("ct"); ct != "-" {
			w.Header().Set("Content-Type", ct)
		} else {
			w.Header()["Content-Type"] = nil // stop net/http sniffing one
		}
		fmt.Fprint(w, "%PDF-1.4 or <p>text</p>")
	})
	f, _ := newFetcher(t, fetch.Config{RootCAs: s.rootCAs(), AllowLoopbackForTests: true}, "official.test:"+s.port)
	cases := map[string]bool{
		"text/html; charset=utf-8":       true,
		"TEXT/HTML":                      true,
		"text/plain; charset=iso-8859-1": true,
		"application/pdf":                true,
		"application/json":               false,
		"application/xhtml+xml":          false,
		"image/svg+xml":                  false,
		"application/octet-stream":       false,
		"text/html; charset":             false,
		"-":                              false,
	}
	for ct, ok := range cases {
		_, err := f.Fetch(context.Background(), "https://official.test:"+s.port+"/?ct="+url.QueryEscape(ct))
		if ok && err != nil {
			t.Errorf("%q refused: %v", ct, err)
		}
		if !ok && !errors.Is(err, fetch.ErrContentType) {
			t.Errorf("%q: err = %v, want ErrContentType", ct, err)
		}
	}
}

func TestStatusErrors(t *testing.T) {
	s := newSite(t, true, func(w http.ResponseWriter, r *http.Request) {
		var code int
		fmt.Sscanf(r.URL.Path, "/%d", &code)
		w.WriteHeader(code)
	})
	f, _ := newFetcher(t, fetch.Config{RootCAs: s.rootCAs(), AllowLoopbackForTests: true}, "official.test:"+s.port)
	for code, permanent := range map[int]bool{404: true, 410: true, 429: false, 500: false, 503: false} {
		_, err := f.Fetch(context.Background(), fmt.Sprintf("https://official.test:%s/%d", s.port, code))
		var status *fetch.StatusError
		if !errors.As(err, &status) || status.Code != code {
			t.Errorf("%d: err = %v", code, err)
		}
		if fetch.IsPermanent(err) != permanent {
			t.Errorf("%d: IsPermanent = %v", code, !permanent)
		}
	}
}

func TestTLSIsVerified(t *testing.T) {
	s := newSite(t, true, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "ok")
	})
	// Without the test CA the self-signed certificate is rejected.
	f, _ := newFetcher(t, fetch.Config{AllowLoopbackForTests: true}, "official.test:"+s.port)
	if _, err := f.Fetch(context.Background(), "https://official.test:"+s.port+"/"); err == nil {
		t.Error("untrusted certificate accepted")
	}
	if s.hits.Load() != 0 {
		t.Errorf("server handled %d requests over an unverified connection", s.hits.Load())
	}
}

func TestHTTPOnlyWithTheTestOption(t *testing.T) {
	s := newSite(t, false, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "plain ok")
	})
	f, _ := newFetcher(t, fetch.Config{AllowHTTPForTests: true, AllowLoopbackForTests: true}, "official.test:"+s.port)
	doc, err := f.Fetch(context.Background(), "http://official.test:"+s.port+"/")
	if err != nil || string(doc.Body) != "plain ok" {
		t.Fatalf("doc = %q, err = %v", doc.Body, err)
	}
}

func TestProxyEnvironmentIsIgnored(t *testing.T) {
	proxy := newSite(t, false, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "via proxy")
	})
	s := newSite(t, true, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "direct")
	})
	for _, name := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY"} {
		t.Setenv(name, proxy.URL)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	f, _ := newFetcher(t, fetch.Config{RootCAs: s.rootCAs(), AllowLoopbackForTests: true}, "official.test:"+s.port)
	doc, err := f.Fetch(context.Background(), "https://official.test:"+s.port+"/")
	if err != nil || string(doc.Body) != "direct" {
		t.Fatalf("doc = %q, err = %v", doc.Body, err)
	}
	if proxy.hits.Load() != 0 {
		t.Errorf("proxy received %d requests", proxy.hits.Load())
	}
}

func TestTimeout(t *testing.T) {
	s := newSite(t, true, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers
	})
	f, _ := newFetcher(t, fetch.Config{RootCAs: s.rootCAs(), AllowLoopbackForTests: true, Timeout: 50 * time.Millisecond}, "official.test:"+s.port)
	_, err := f.Fetch(context.Background(), "https://official.test:"+s.port+"/")
	if err == nil || fetch.IsPermanent(err) {
		t.Errorf("err = %v, want a retryable timeout", err)
	}
}

func TestFetchesAPDF(t *testing.T) {
	pdf := readFixture(t, "vat-notice.pdf")
	s := newSite(t, true, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(pdf)
	})
	f, _ := newFetcher(t, fetch.Config{RootCAs: s.rootCAs(), AllowLoopbackForTests: true}, "official.test:"+s.port)
	doc, err := f.Fetch(context.Background(), "https://official.test:"+s.port+"/notice.pdf")
	if err != nil || doc.MediaType() != "application/pdf" || !bytes.Equal(doc.Body, pdf) {
		t.Fatalf("doc = %s %d bytes, err = %v", doc.ContentType, len(doc.Body), err)
	}
}

func TestAddressPolicy(t *testing.T) {
	blocked := []string{
		"0.0.0.0", "0.1.2.3", "10.0.0.1", "10.255.255.255", "100.64.0.1", "100.127.255.254",
		"127.0.0.1", "127.8.8.8", "169.254.169.254", "169.254.0.1", "172.16.0.1", "172.31.255.255",
		"192.0.0.170", "192.0.2.1", "192.168.1.1", "198.18.0.1", "198.51.100.7", "203.0.113.9",
		"224.0.0.251", "239.255.255.250", "240.0.0.1", "255.255.255.255",
		"::", "::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::ffff:10.0.0.1", "::127.0.0.1",
		"fc00::1", "fd00:ec2::254", "fe80::1", "fe80::1%eth0", "fec0::1", "ff02::1", "100::1",
		"2001:db8::1", "2001::1", "2002:a9fe:a9fe::1", "3fff::1", "64:ff9b::a9fe:a9fe", "64:ff9b::7f00:1",
	}
	allowed := []string{"93.184.215.14", "52.95.110.1", "100.63.255.255", "100.128.0.1", "172.32.0.1",
		"2a01:111:f400::1", "2600:1f18::1", "64:ff9b::5db8:d70e", "::ffff:93.184.215.14"}
	for _, s := range blocked {
		if err := fetch.CheckAddress(netip.MustParseAddr(s), false); !errors.Is(err, fetch.ErrBlocked) {
			t.Errorf("%s allowed", s)
		}
	}
	for _, s := range allowed {
		if err := fetch.CheckAddress(netip.MustParseAddr(s), false); err != nil {
			t.Errorf("%s blocked: %v", s, err)
		}
	}
	// The loopback option opens loopback and nothing else.
	for _, s := range []string{"127.0.0.1", "::1", "::ffff:127.0.0.1"} {
		if err := fetch.CheckAddress(netip.MustParseAddr(s), true); err != nil {
			t.Errorf("%s blocked with the loopback option: %v", s, err)
		}
	}
	for _, s := range []string{"169.254.169.254", "10.0.0.1", "fd00::1", "0.0.0.0", "::"} {
		if err := fetch.CheckAddress(netip.MustParseAddr(s), true); err == nil {
			t.Errorf("%s allowed by the loopback option", s)
		}
	}
}

// The wiring other packages' tests use: a plain httptest.NewTLSServer (its
// stock certificate covers 127.0.0.1) addressed by its IP literal,
// allowlisted with its port, loopback allowed by the test option, and its
// client's root CAs.
func TestLocalTestServerByIPLiteral(t *testing.T) {
	var hits atomic.Int32
	s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "Standard rate 23%")
	}))
	defer s.Close()
	rootCAs := s.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	catalog, err := sources.New(sources.Options{ExtraHostsForTests: []string{strings.TrimPrefix(s.URL, "https://")}})
	if err != nil {
		t.Fatal(err)
	}
	f := fetch.New(fetch.Config{Allowlist: catalog, RootCAs: rootCAs, AllowLoopbackForTests: true})
	doc, err := f.Fetch(context.Background(), s.URL+"/rates.txt")
	if err != nil || string(doc.Body) != "Standard rate 23%" || doc.URL != s.URL+"/rates.txt" {
		t.Fatalf("doc = %q from %s, err = %v", doc.Body, doc.URL, err)
	}
	// The same server without the loopback option is refused unseen.
	before := hits.Load()
	f = fetch.New(fetch.Config{Allowlist: catalog, RootCAs: rootCAs})
	if _, err := f.Fetch(context.Background(), s.URL+"/rates.txt"); !errors.Is(err, fetch.ErrBlocked) {
		t.Errorf("err = %v, want ErrBlocked", err)
	}
	if hits.Load() != before {
		t.Error("server was reached without the loopback option")
	}
}
