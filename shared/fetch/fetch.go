// Package fetch downloads official source pages without becoming an SSRF
// tool: https only, allowlisted hosts only, and never a connection to a
// loopback, private, link-local or otherwise internal address. The address
// check runs in the dialer's Control hook on the address actually being
// connected, so neither DNS rebinding nor a redirect can slip past it.
package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Limits.
const (
	DefaultMaxBytes = 2 << 20 // 2 MiB
	DefaultTimeout  = 20 * time.Second
	// MaxRedirects is fixed: official sites need one or two hops
	// (http→https, trailing slash, moved page); more is a loop or a trick.
	MaxRedirects = 3
)

// Errors. Policy refusals are permanent: retrying cannot help.
var (
	// ErrBlocked: the scheme, host or resolved address is not allowed.
	// Nothing was sent to the refused destination.
	ErrBlocked = errors.New("fetch: destination not allowed")
	// ErrTooLarge: the body exceeds MaxBytes. The body is not returned
	// truncated: a cut-off page could lose the very table a fact is in.
	ErrTooLarge = errors.New("fetch: response too large")
	// ErrContentType: not text/html, text/plain or application/pdf.
	ErrContentType = errors.New("fetch: unsupported content type")
	// ErrTooManyRedirects: more than MaxRedirects hops.
	ErrTooManyRedirects = errors.New("fetch: too many redirects")
)

// StatusError is a non-2xx response.
type StatusError struct {
	URL  string
	Code int
}

func (e *StatusError) Error() string { return fmt.Sprintf("fetch: %s: HTTP %d", e.URL, e.Code) }

// IsPermanent reports whether err will recur on retry: a policy refusal,
// an oversized or unsupported body, a redirect loop, or a 4xx other than
// 408/429. Network errors, timeouts and 5xx are worth retrying.
func IsPermanent(err error) bool {
	var status *StatusError
	if errors.As(err, &status) {
		return status.Code >= 400 && status.Code < 500 && status.Code != http.StatusRequestTimeout && status.Code != http.StatusTooManyRequests
	}
	return errors.Is(err, ErrBlocked) || errors.Is(err, ErrTooLarge) ||
		errors.Is(err, ErrContentType) || errors.Is(err, ErrTooManyRedirects)
}

// allowedMediaTypes are the bodies the extractor can read.
var allowedMediaTypes = map[string]bool{
	"text/html":       true,
	"text/plain":      true,
	"application/pdf": true,
}

// Allowlist decides which hosts may be fetched; *sources.Catalog is one.
// It sees the scheme only to know the default port.
type Allowlist interface {
	Allows(u *url.URL) bool
}

// Resolver looks up a host's addresses; *net.Resolver is one. Tests swap it
// to make a name resolve to a loopback or metadata address.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// Config configures a Fetcher. The zero value plus an Allowlist is the
// production setting.
type Config struct {
	// Allowlist is required; without one every URL is refused.
	Allowlist Allowlist
	// Resolver defaults to net.DefaultResolver.
	Resolver Resolver
	// MaxBytes caps the (decoded) body; 0 means DefaultMaxBytes.
	MaxBytes int64
	// Timeout bounds the whole fetch, redirects and body included; 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// UserAgent identifies the fetcher to the source sites.
	UserAgent string
	// RootCAs trusts these CAs instead of the system roots (tests pass the
	// local TLS server's pool).
	RootCAs *x509.CertPool

	// AllowHTTPForTests accepts plain http:// URLs. Test-only.
	AllowHTTPForTests bool
	// AllowLoopbackForTests lets an allowlisted host resolve to a loopback
	// address (127.0.0.0/8, ::1). Test-only; every other internal range
	// stays blocked.
	AllowLoopbackForTests bool
}

// Document is one fetched source.
type Document struct {
	URL         string // final URL, after redirects
	ContentType string // the Content-Type header as sent (charset included)
	Body        []byte
	FetchedAt   time.Time
}

// MediaType is the document's lower-case media type without parameters.
func (d Document) MediaType() string {
	mt, _, _ := mime.ParseMediaType(d.ContentType)
	return mt
}

// Fetcher fetches documents under a Config. Safe for concurrent use.
type Fetcher struct {
	cfg    Config
	client *http.Client
	now    func() time.Time
	// dial connects to one already-checked IP address; tests wrap it to
	// prove that refused addresses are never dialled.
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// New returns a Fetcher for cfg.
func New(cfg Config) *Fetcher {
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "regintel-enrichment/1 (official regulatory sources)"
	}
	f := &Fetcher{cfg: cfg, now: time.Now}
	dialer := &net.Dialer{
		Timeout: 10 * time.Second,
		// Last line of defence: whatever address the socket is about to
		// connect to is checked here, at connect time.
		Control: f.controlConnect,
	}
	f.dial = dialer.DialContext
	transport := &http.Transport{
		Proxy:                  nil, // proxy env vars must not reroute fetches
		DialContext:            f.dialChecked,
		TLSClientConfig:        &tls.Config{RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  15 * time.Second,
		IdleConnTimeout:        30 * time.Second,
		MaxIdleConns:           16,
		MaxResponseHeaderBytes: 64 << 10,
	}
	f.client = &http.Client{
		Transport:     transport,
		Timeout:       cfg.Timeout,
		CheckRedirect: f.checkRedirect,
	}
	return f
}

// Fetch GETs rawURL and returns the document. The URL is checked before any
// connection is made; every redirect target is checked the same way before
// it is followed, and every connection's address at connect time.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (Document, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return Document{}, fmt.Errorf("%w: %v", ErrBlocked, err)
	}
	if err := f.checkURL(u); err != nil {
		return Document{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Document{}, fmt.Errorf("%w: %v", ErrBlocked, err)
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	req.Header.Set("Accept", "text/html, text/plain;q=0.9, application/pdf;q=0.8")

	resp, err := f.client.Do(req)
	if err != nil {
		return Document{}, fmt.Errorf("fetch %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL.String()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return Document{}, &StatusError{URL: final, Code: resp.StatusCode}
	}
	contentType := resp.Header.Get("Content-Type")
	mediaType, _, err := mime.ParseMediaType(contentType)
	if err != nil || !allowedMediaTypes[mediaType] {
		return Document{}, fmt.Errorf("%w: %q from %s", ErrContentType, contentType, final)
	}
	if resp.ContentLength > f.cfg.MaxBytes {
		return Document{}, fmt.Errorf("%w: %s declares %d bytes, limit %d", ErrTooLarge, final, resp.ContentLength, f.cfg.MaxBytes)
	}
	// Read one byte past the limit to tell "exactly at the cap" from "over".
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.cfg.MaxBytes+1))
	if err != nil {
		return Document{}, fmt.Errorf("fetch %s: read body: %w", final, err)
	}
	if int64(len(body)) > f.cfg.MaxBytes {
		return Document{}, fmt.Errorf("%w: %s is over %d bytes", ErrTooLarge, final, f.cfg.MaxBytes)
	}
	return Document{URL: final, ContentType: contentType, Body: body, FetchedAt: f.now().UTC()}, nil
}

// checkURL enforces scheme and allowlist. It runs before the first request
// and before each redirect is followed, so a refused URL sees no bytes.
func (f *Fetcher) checkURL(u *url.URL) error {
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && f.cfg.AllowHTTPForTests:
	default:
		return fmt.Errorf("%w: scheme %q in %s", ErrBlocked, u.Scheme, u.Redacted())
	}
	if u.User != nil {
		return fmt.Errorf("%w: credentials in URL %s", ErrBlocked, u.Redacted())
	}
	if u.Hostname() == "" || f.cfg.Allowlist == nil || !f.cfg.Allowlist.Allows(u) {
		return fmt.Errorf("%w: host %q is not on the allowlist", ErrBlocked, u.Host)
	}
	return nil
}

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return fmt.Errorf("%w: more than %d", ErrTooManyRedirects, MaxRedirects)
	}
	return f.checkURL(req.URL)
}

// dialChecked resolves the host itself and dials only the addresses that
// pass checkAddress, by IP, so the name is not resolved a second time
// between the check and the connect.
func (f *Fetcher) dialChecked(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBlocked, err)
	}
	addrs, err := f.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, ip := range addrs {
		if err := checkAddress(ip, f.cfg.AllowLoopbackForTests); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", host, err))
			continue
		}
		conn, err := f.dial(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("resolve %s: no addresses", host)
	}
	return nil, errors.Join(errs...)
}

func (f *Fetcher) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	found, err := f.cfg.Resolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", host, err)
	}
	out := make([]netip.Addr, 0, len(found))
	for _, a := range found {
		// net.IP often holds IPv4 in its 16-byte form; dial it as IPv4.
		if ip, ok := netip.AddrFromSlice(a.IP); ok {
			out = append(out, ip.Unmap())
		}
	}
	return out, nil
}

// controlConnect runs just before each socket connects. Only TCP to an
// address that passes checkAddress may proceed.
func (f *Fetcher) controlConnect(network, address string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" {
		return fmt.Errorf("%w: network %q", ErrBlocked, network)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBlocked, err)
	}
	return checkAddress(ap.Addr(), f.cfg.AllowLoopbackForTests)
}
