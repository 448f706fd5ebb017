package main

import (
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"
)

// listenFdsStart is the first descriptor systemd passes (SD_LISTEN_FDS_START).
const listenFdsStart = 3

// inheritedListener returns the listening socket passed by systemd socket
// activation (LISTEN_FDS and LISTEN_PID naming this process), or nil when
// there is none. Only the first descriptor is used; it must be a listening
// TCP or Unix stream socket. The variables are removed from the
// environment, so that no child takes them for its own.
func inheritedListener(o options, log zerolog.Logger) (net.Listener, error) {
	fds, pid := os.Getenv("LISTEN_FDS"), os.Getenv("LISTEN_PID")
	if fds == "" {
		return nil, nil
	}
	if p, err := strconv.Atoi(pid); err != nil || p != os.Getpid() {
		return nil, nil // meant for another process
	}
	for _, v := range []string{"LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"} {
		_ = os.Unsetenv(v)
	}
	n, err := strconv.Atoi(fds)
	if err != nil || n < 1 {
		return nil, fmt.Errorf("socket activation: LISTEN_FDS=%q passes no socket", fds)
	}
	if n > 1 {
		log.Warn().Str("component", "cmd").Int("listen_fds", n).
			Msg("socket activation passed several sockets; serving the first only")
	}
	if err := checkListening(listenFdsStart); err != nil {
		return nil, fmt.Errorf("socket activation: descriptor %d: %w", listenFdsStart, err)
	}
	f := os.NewFile(listenFdsStart, "systemd-socket")
	ln, err := net.FileListener(f) // a duplicate; the original is closed next
	_ = f.Close()
	if err != nil {
		return nil, fmt.Errorf("socket activation: %w", err)
	}
	if o.addr != "" || o.port != defaultOptions().port {
		log.Warn().Str("component", "cmd").Msg("socket activation: -l and -p are ignored")
	}
	log.Info().Str("component", "cmd").Stringer("addr", ln.Addr()).Msg("serving the socket passed by systemd")
	return ln, nil
}

// checkListening accepts only a listening stream socket of the IP or Unix
// families.
func checkListening(fd int) error {
	typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil {
		return fmt.Errorf("not a socket: %w", err)
	}
	acc, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN)
	if err != nil {
		return err
	}
	dom, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		return err
	}
	switch {
	case typ != unix.SOCK_STREAM:
		return fmt.Errorf("not a stream socket")
	case acc != 1:
		return fmt.Errorf("not a listening socket")
	case dom != unix.AF_INET && dom != unix.AF_INET6 && dom != unix.AF_UNIX:
		return fmt.Errorf("not a TCP or Unix socket")
	}
	return nil
}
