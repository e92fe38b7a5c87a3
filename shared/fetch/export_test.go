package fetch

import (
	"context"
	"net"
	"net/netip"
	"syscall"
)

// CheckAddress exposes the address policy to the tests.
func CheckAddress(ip netip.Addr, allowLoopback bool) error { return checkAddress(ip, allowLoopback) }

// ConnectControl exposes the dialer's connect-time hook.
func ConnectControl(f *Fetcher) func(network, address string, c syscall.RawConn) error {
	return f.controlConnect
}

// GuardDials routes every dial through guard first; a non-nil error stops the
// dial. Tests use it to record what was dialled and to make sure a broken
// policy can never reach a non-loopback address from the test machine.
func GuardDials(f *Fetcher, guard func(addr string) error) {
	next := f.dial
	f.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if err := guard(addr); err != nil {
			return nil, err
		}
		return next(ctx, network, addr)
	}
}
