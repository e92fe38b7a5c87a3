// Package sources decides which official pages an enrichment job may fetch:
// an allowlist of official hosts and, per jurisdiction and domain (and kind),
// the configured pages worth reading. Both live in official.json, embedded in
// the binary so a deployment cannot fetch anything it was not built with.
package sources

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"regintel/shared/concept"
)

//go:embed official.json
var officialJSON []byte

// DefaultMaxSources caps the URLs one job fetches: each costs a fetch, an
// extraction and part of one LLM call's context.
const DefaultMaxSources = 5

// minConfiguredSlots keeps room for curated sources when a job brings many
// URLs of its own: the job's URLs come from an LLM capture and may be weak.
const minConfiguredSlots = 2

// Request is what Select needs from an enrichment.requested job (the
// fields of queue.EnrichmentRequested that name the concept).
type Request struct {
	ConceptID    string
	Domain       string
	Kind         string
	Jurisdiction string
	SourceURLs   []string
}

// Source is one configured entry: the pages to read for a jurisdiction and
// any of the listed domains and/or kinds (an empty list matches any value,
// but an entry must name at least one domain or kind).
type Source struct {
	Jurisdiction string   `json:"jurisdiction"`
	Domains      []string `json:"domains,omitempty"`
	Kinds        []string `json:"kinds,omitempty"`
	URLs         []string `json:"urls"`
}

// AllowedHost is one allowlist entry of the data file.
type AllowedHost struct {
	Host         string `json:"host"`
	Jurisdiction string `json:"jurisdiction"`
	Name         string `json:"name"`
	// QueryKeys are the query parameters the host's page URLs keep when
	// stored (SourceURL); any other parameter is dropped.
	QueryKeys []string `json:"queryKeys,omitempty"`
}

type catalogFile struct {
	JurisdictionAliases map[string]string `json:"jurisdictionAliases"`
	Allowlist           []AllowedHost     `json:"allowlist"`
	Sources             []Source          `json:"sources"`
}

// Options adjust a catalog. Production wiring leaves them zero.
type Options struct {
	// MaxSources caps Select's result; 0 means DefaultMaxSources.
	MaxSources int
	// ExtraHostsForTests extends the allowlist with "host" or "host:port"
	// entries (an IP literal is allowed here, and only here) so tests can
	// serve fixture pages from a local server. Never set in production.
	ExtraHostsForTests []string
	// ExtraSourcesForTests adds configured sources; their URLs must pass
	// the (extended) allowlist.
	ExtraSourcesForTests []Source
}

// Catalog is the parsed allowlist and configured sources. It is immutable
// and safe for concurrent use.
type Catalog struct {
	rules      []hostRule
	sources    []Source // normalised: upper-case keys, normalised URLs
	aliases    map[string]string
	maxSources int
}

// hostRule matches a host name (and its subdomains) or an exact IP literal,
// on the scheme's default port unless a port is given.
type hostRule struct {
	host      string
	port      string
	isIP      bool
	queryKeys []string
}

// New parses the embedded official.json with opts.
func New(opts Options) (*Catalog, error) {
	return Parse(officialJSON, opts)
}

// Parse builds a catalog from data in the official.json format. Every
// configured URL must be https and on the allowlist, so a typo in the data
// file fails loudly here instead of being silently skipped at fetch time.
func Parse(data []byte, opts Options) (*Catalog, error) {
	var file catalogFile
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("sources: parse catalog: %w", err)
	}
	c := &Catalog{aliases: map[string]string{}, maxSources: opts.MaxSources}
	if c.maxSources <= 0 {
		c.maxSources = DefaultMaxSources
	}
	for from, to := range file.JurisdictionAliases {
		c.aliases[key(from)] = key(to)
	}
	for _, h := range file.Allowlist {
		rule, err := parseHostRule(h.Host, false)
		if err != nil {
			return nil, err
		}
		rule.queryKeys = h.QueryKeys
		c.rules = append(c.rules, rule)
	}
	for _, h := range opts.ExtraHostsForTests {
		rule, err := parseHostRule(h, true)
		if err != nil {
			return nil, err
		}
		c.rules = append(c.rules, rule)
	}
	if len(c.rules) == 0 {
		return nil, errors.New("sources: empty allowlist")
	}
	for i, s := range append(file.Sources, opts.ExtraSourcesForTests...) {
		norm := Source{Jurisdiction: c.jurisdiction(s.Jurisdiction)}
		for _, d := range s.Domains {
			norm.Domains = append(norm.Domains, key(d))
		}
		for _, k := range s.Kinds {
			norm.Kinds = append(norm.Kinds, key(k))
		}
		if norm.Jurisdiction == "" || len(norm.Domains)+len(norm.Kinds) == 0 || len(s.URLs) == 0 {
			return nil, fmt.Errorf("sources: entry %d needs a jurisdiction, a domain or kind, and urls", i)
		}
		for _, raw := range s.URLs {
			u, ok := c.official(raw)
			if !ok {
				return nil, fmt.Errorf("sources: entry %d: %q is not an https URL on the allowlist", i, raw)
			}
			norm.URLs = append(norm.URLs, u)
		}
		c.sources = append(c.sources, norm)
	}
	return c, nil
}

// Select returns the URLs an enrichment job may fetch: the job's own
// sourceURLs that are https and on the allowlist, then the configured
// sources for its jurisdiction and domain (kind-specific entries first),
// de-duplicated and capped. Nothing else. The job's URLs get at most
// max-2 slots so curated sources are always tried when they exist; unused
// slots go back to the job's remaining URLs.
func (c *Catalog) Select(r Request) []string {
	domain, jurisdiction, kind := key(r.Domain), c.jurisdiction(r.Jurisdiction), key(r.Kind)
	if parts := strings.Split(r.ConceptID, ":"); len(parts) == 3 {
		// Fall back to the canonical id (DOMAIN:JURISDICTION:KIND) for
		// whatever the job left empty.
		if domain == "" {
			domain = key(parts[0])
		}
		if jurisdiction == "" {
			jurisdiction = c.jurisdiction(parts[1])
		}
		if kind == "" {
			kind = key(parts[2])
		}
	}

	var fromJob []string
	for _, raw := range r.SourceURLs {
		if u, ok := c.official(raw); ok {
			fromJob = append(fromJob, u)
		}
	}
	configured := c.configured(jurisdiction, domain, kind)

	jobSlots := min(len(fromJob), max(c.maxSources-minConfiguredSlots, 0))
	ordered := append(append(append([]string{}, fromJob[:jobSlots]...), configured...), fromJob[jobSlots:]...)

	seen := map[string]bool{}
	out := []string{}
	for _, u := range ordered {
		if seen[u] {
			continue
		}
		seen[u] = true
		out = append(out, u)
		if len(out) == c.maxSources {
			break
		}
	}
	return out
}

// configured lists the configured URLs for a jurisdiction: entries naming the
// kind first, then entries that match on domain alone.
func (c *Catalog) configured(jurisdiction, domain, kind string) []string {
	if jurisdiction == "" {
		return nil
	}
	var byKind, byDomain []string
	for _, s := range c.sources {
		if s.Jurisdiction != jurisdiction {
			continue
		}
		domainOK := len(s.Domains) == 0 || (domain != "" && slices.Contains(s.Domains, domain))
		switch {
		case len(s.Kinds) > 0:
			if kind != "" && slices.Contains(s.Kinds, kind) && domainOK {
				byKind = append(byKind, s.URLs...)
			}
		case domain != "" && slices.Contains(s.Domains, domain):
			byDomain = append(byDomain, s.URLs...)
		}
	}
	return append(byKind, byDomain...)
}

// Allows reports whether u's host and port are on the allowlist. It does not
// look at the scheme: callers decide which schemes they accept (Select takes
// https only; the fetcher allows http only under a test option). It is the
// allowlist the fetcher checks before every request and redirect.
func (c *Catalog) Allows(u *url.URL) bool {
	if u == nil || u.User != nil {
		return false
	}
	host, ok := canonicalHost(u.Hostname())
	if !ok {
		return false
	}
	port := u.Port()
	for _, r := range c.rules {
		if r.matches(host, port, u.Scheme) {
			return true
		}
	}
	return false
}

// IsOfficial reports whether raw is an https URL on the allowlist.
func (c *Catalog) IsOfficial(raw string) bool {
	_, ok := c.official(raw)
	return ok
}

// SourceURL returns the form of raw the shared graph may store, or false
// when raw is not an https URL on the allowlist: normalised as official
// does, and with only the query parameters its host's entry lists (a
// query may carry personal data or tracking; the page is the same without
// it).
func (c *Catalog) SourceURL(raw string) (string, bool) {
	norm, ok := c.official(raw)
	if !ok {
		return "", false
	}
	u, err := url.Parse(norm)
	if err != nil {
		return "", false
	}
	if u.RawQuery == "" && !u.ForceQuery {
		return norm, true
	}
	keys := c.queryKeys(u)
	query, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		query = url.Values{}
	}
	for k := range query {
		if !slices.Contains(keys, k) {
			delete(query, k)
		}
	}
	u.RawQuery, u.ForceQuery = query.Encode(), false
	return u.String(), true
}

// queryKeys are the query parameters u's allowlist entry keeps (the most
// specific matching entry's).
func (c *Catalog) queryKeys(u *url.URL) []string {
	host, _ := canonicalHost(u.Hostname())
	var best hostRule
	for _, r := range c.rules {
		if r.matches(host, u.Port(), u.Scheme) && len(r.host) > len(best.host) {
			best = r
		}
	}
	return best.queryKeys
}

// Hosts lists the allowlist entries (for logs and diagnostics).
func (c *Catalog) Hosts() []string {
	out := make([]string, 0, len(c.rules))
	for _, r := range c.rules {
		if r.port != "" {
			out = append(out, r.host+":"+r.port)
		} else {
			out = append(out, r.host)
		}
	}
	return out
}

// official parses raw and, when it is an https URL on the allowlist, returns
// its normalised form (lower-case host, no fragment, no default port) so the
// same page is never listed twice.
func (c *Catalog) official(raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || !strings.EqualFold(u.Scheme, "https") || u.Opaque != "" || !c.Allows(u) {
		return "", false
	}
	host, _ := canonicalHost(u.Hostname())
	switch port := u.Port(); {
	case port != "" && port != "443":
		host = net.JoinHostPort(host, port)
	case strings.Contains(host, ":"):
		host = "[" + host + "]"
	}
	u.Scheme, u.Host, u.Fragment, u.RawFragment = "https", host, "", ""
	if u.Path == "" {
		u.Path = "/"
	}
	return u.String(), true
}

func (c *Catalog) jurisdiction(s string) string {
	k := key(s)
	if alias, ok := c.aliases[k]; ok {
		return alias
	}
	return k
}

func (r hostRule) matches(host, port, scheme string) bool {
	if !portMatches(r.port, port, scheme) {
		return false
	}
	if r.isIP {
		return host == r.host
	}
	return host == r.host || strings.HasSuffix(host, "."+r.host)
}

// portMatches treats an absent port as the scheme's default, so a bare
// allowlist entry never admits an unusual port on an official host.
func portMatches(rulePort, port, scheme string) bool {
	def := map[string]string{"https": "443", "http": "80"}[strings.ToLower(scheme)]
	if port == "" {
		port = def
	}
	if rulePort == "" {
		rulePort = def
	}
	return port != "" && port == rulePort
}

// parseHostRule validates an allowlist entry. IP literals are accepted only
// for test entries: production data names hosts.
func parseHostRule(entry string, forTests bool) (hostRule, error) {
	entry = strings.TrimSpace(entry)
	host, port := entry, ""
	if h, p, ok := splitHostPort(entry); ok {
		host, port = h, p
	}
	canon, ok := canonicalHost(host)
	if !ok {
		return hostRule{}, fmt.Errorf("sources: allowlist entry %q is not a host name", entry)
	}
	_, ipErr := netip.ParseAddr(canon)
	isIP := ipErr == nil
	if isIP && !forTests {
		return hostRule{}, fmt.Errorf("sources: allowlist entry %q is an IP address", entry)
	}
	if !isIP && !strings.Contains(canon, ".") {
		// A single label ("ie", "uk") would admit a whole top-level domain.
		return hostRule{}, fmt.Errorf("sources: allowlist entry %q is too broad", entry)
	}
	return hostRule{host: canon, port: port, isIP: isIP}, nil
}

// splitHostPort splits "host:port" and "[v6]:port"; a bare IPv6 literal
// has no port.
func splitHostPort(s string) (host, port string, ok bool) {
	if strings.HasPrefix(s, "[") {
		end := strings.Index(s, "]")
		if end < 0 {
			return "", "", false
		}
		host, rest := s[1:end], s[end+1:]
		if rest == "" {
			return host, "", true
		}
		if !strings.HasPrefix(rest, ":") || !isPort(rest[1:]) {
			return "", "", false
		}
		return host, rest[1:], true
	}
	if strings.Count(s, ":") == 1 {
		i := strings.LastIndex(s, ":")
		if isPort(s[i+1:]) {
			return s[:i], s[i+1:], true
		}
	}
	return "", "", false
}

func isPort(s string) bool {
	if s == "" || len(s) > 5 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// canonicalHost lower-cases a host, drops one trailing dot and accepts only
// IP literals or plain ASCII DNS names, so percent-encoded or Unicode
// look-alike hosts never match an allowlist entry.
func canonicalHost(h string) (string, bool) {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "" {
		return "", false
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		if ip.Zone() != "" {
			return "", false
		}
		return ip.String(), true
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return "", false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return "", false
			}
		}
	}
	return h, true
}

// key normalises a domain, kind or jurisdiction the way canonical concept
// ids do, so "social welfare" finds SOCIAL_WELFARE.
func key(s string) string { return concept.IDPart(s, "") }
