package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// listenSpec is a parsed Config.Addr: the gnet address to try first and,
// for the all-interfaces default, an IPv4-only fallback for hosts without
// IPv6.
type listenSpec struct {
	proto    string // gnet "proto://addr"
	fallback string // "" or the address to try when proto fails
	unixPath string // set for Unix sockets
}

// unixPrefix introduces a Unix socket path in Config.Addr, as in the
// reference's "-l unix:/path".
const unixPrefix = "unix:"

// parseAddr turns Config.Addr into gnet addresses. For a Unix socket it
// refuses a path that exists and is not a socket (gnet would remove it).
func parseAddr(addr string) (listenSpec, error) {
	if p, ok := strings.CutPrefix(addr, unixPrefix); ok {
		return parseUnix(p)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return listenSpec{}, fmt.Errorf("engine: listen address %q: %w", addr, err)
	}
	pn, err := net.LookupPort("tcp", port)
	if err != nil {
		return listenSpec{}, fmt.Errorf("engine: listen address %q: %w", addr, err)
	}
	hp := net.JoinHostPort(host, fmt.Sprint(pn))
	if host == "" {
		// An empty host makes gnet open one AF_INET6 socket with V6ONLY
		// off: IPv4 and IPv6 on a single socket, like the reference.
		return listenSpec{proto: "tcp://" + hp, fallback: "tcp4://0.0.0.0:" + fmt.Sprint(pn)}, nil
	}
	return listenSpec{proto: "tcp://" + hp}, nil
}

func parseUnix(p string) (listenSpec, error) {
	if p == "" {
		return listenSpec{}, errors.New("engine: empty unix socket path")
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return listenSpec{}, fmt.Errorf("engine: unix socket path %q: %w", p, err)
	}
	u := (&url.URL{Scheme: "unix", Path: abs}).String()
	if u != "unix://"+abs || strings.ContainsAny(abs, "%?#") {
		return listenSpec{}, fmt.Errorf("engine: unix socket path %q has characters gnet cannot take", p)
	}
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return listenSpec{}, fmt.Errorf("engine: unix socket path: %w", err)
	case fi.Mode()&fs.ModeSocket == 0:
		return listenSpec{}, fmt.Errorf("engine: %s exists and is not a socket", abs)
	}
	return listenSpec{proto: u, unixPath: abs}, nil
}

// boundAddr asks the kernel which address the engine's listener is bound
// to (gnet's Engine has no Addr, and port 0 must be resolved).
func boundAddr(eng gnet.Engine) (net.Addr, error) {
	fd, err := eng.Dup()
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return nil, os.NewSyscallError("getsockname", err)
	}
	switch sa := sa.(type) {
	case *unix.SockaddrInet4:
		return &net.TCPAddr{IP: net.IP(append([]byte(nil), sa.Addr[:]...)), Port: sa.Port}, nil
	case *unix.SockaddrInet6:
		a := &net.TCPAddr{IP: net.IP(append([]byte(nil), sa.Addr[:]...)), Port: sa.Port}
		if sa.ZoneId != 0 {
			if ifc, err := net.InterfaceByIndex(int(sa.ZoneId)); err == nil {
				a.Zone = ifc.Name
			}
		}
		return a, nil
	case *unix.SockaddrUnix:
		return &net.UnixAddr{Name: sa.Name, Net: "unix"}, nil
	}
	return nil, fmt.Errorf("engine: unexpected listener address %T", sa)
}

// isNoIPv6 reports whether a listen error means the host has no IPv6.
func isNoIPv6(err error) bool {
	return errors.Is(err, unix.EAFNOSUPPORT) || errors.Is(err, unix.EADDRNOTAVAIL) ||
		errors.Is(err, unix.EPROTONOSUPPORT)
}
