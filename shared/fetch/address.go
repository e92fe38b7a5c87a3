package fetch

import (
	"fmt"
	"net/netip"
)

// blockedV4 lists IPv4 ranges that are never a public web server: a fetch
// that reaches one is an SSRF attempt (cloud metadata, VPC services, the
// Lambda runtime API) or a misconfiguration.
var blockedV4 = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified (this network)"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private (RFC 1918)"},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local (cloud metadata)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private (RFC 1918)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private (RFC 1918)"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved or broadcast"},
}

var (
	// Only global unicast IPv6 is ever dialled; this single rule excludes
	// the unspecified and loopback addresses, IPv4-compatible forms, unique
	// local fc00::/7, link-local fe80::/10, multicast ff00::/8 and more.
	globalUnicastV6 = netip.MustParsePrefix("2000::/3")
	// nat64 embeds an IPv4 address (RFC 6052); it is judged by that address
	// so a DNS64 network can still reach public sites but not internal ones.
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
)

var blockedV6 = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("2001::/23"), "IETF protocol assignments (Teredo, ORCHID...)"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2002::/16"), "6to4 (embeds an arbitrary IPv4 address)"},
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
}

// checkAddress returns an error wrapping ErrBlocked unless ip is a public
// unicast address. Loopback passes only when allowLoopback is set (tests).
// IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are judged as IPv4.
func checkAddress(ip netip.Addr, allowLoopback bool) error {
	if !ip.IsValid() {
		return fmt.Errorf("%w: invalid address", ErrBlocked)
	}
	ip = ip.WithZone("").Unmap()
	if ip.IsLoopback() {
		if allowLoopback {
			return nil
		}
		return fmt.Errorf("%w: %s is loopback", ErrBlocked, ip)
	}
	if nat64.Contains(ip) {
		b := ip.As16()
		return checkAddress(netip.AddrFrom4([4]byte(b[12:16])), false)
	}
	if ip.Is4() {
		for _, r := range blockedV4 {
			if r.prefix.Contains(ip) {
				return fmt.Errorf("%w: %s is %s", ErrBlocked, ip, r.reason)
			}
		}
		return nil
	}
	if !globalUnicastV6.Contains(ip) {
		return fmt.Errorf("%w: %s is not global unicast", ErrBlocked, ip)
	}
	for _, r := range blockedV6 {
		if r.prefix.Contains(ip) {
			return fmt.Errorf("%w: %s is %s", ErrBlocked, ip, r.reason)
		}
	}
	return nil
}
