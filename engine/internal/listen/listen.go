package listen

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Spec is a parsed listen address (engine.Config.Addr): what to give net.Listen.
type Spec struct {
	network  string // "tcp" or "unix"
	address  string // host:port with the port resolved, or the socket's path
	unixPath string // set for Unix sockets
}

// String is the address as the operator wrote it, for messages.
func (l Spec) String() string {
	if l.unixPath != "" {
		return unixPrefix + l.unixPath
	}
	return l.address
}

// unixPrefix introduces a Unix socket path in Config.Addr, as in the
// reference's "-l unix:/path".
const unixPrefix = "unix:"

// staleDialTimeout bounds the probe that tells a live Unix socket from one
// left behind by a dead process.
const staleDialTimeout = time.Second

// Parse turns Config.Addr into a Spec.
func Parse(addr string) (Spec, error) {
	if p, ok := strings.CutPrefix(addr, unixPrefix); ok {
		return parseUnix(p)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return Spec{}, fmt.Errorf("engine: listen address %q: %w", addr, err)
	}
	pn, err := net.LookupPort("tcp", port)
	if err != nil {
		return Spec{}, fmt.Errorf("engine: listen address %q: %w", addr, err)
	}
	// An empty host makes Go open one AF_INET6 socket with V6ONLY off: IPv4
	// and IPv6 on a single socket, like the reference (IPv4 only on a host
	// without IPv6).
	return Spec{network: "tcp", address: net.JoinHostPort(host, fmt.Sprint(pn))}, nil
}

func parseUnix(p string) (Spec, error) {
	if p == "" {
		return Spec{}, errors.New("engine: empty unix socket path")
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return Spec{}, fmt.Errorf("engine: unix socket path %q: %w", p, err)
	}
	return Spec{network: "unix", address: abs, unixPath: abs}, nil
}

// Listen binds the socket. A Unix socket path that is already a socket is
// replaced only when nothing answers on it (a stale one); any other file
// there is an error.
func Listen(ctx context.Context, spec Spec, keepAlive time.Duration) (net.Listener, error) {
	if spec.unixPath != "" {
		if err := clearStaleSocket(ctx, spec.unixPath); err != nil {
			return nil, err
		}
	}
	lc := net.ListenConfig{KeepAlive: keepAlive}
	ln, err := lc.Listen(ctx, spec.network, spec.address)
	if err != nil {
		return nil, bindError(spec, err)
	}
	return ln, nil
}

// clearStaleSocket removes a socket file that no server answers on, and
// refuses to touch one that a server does answer on or a file that is not a
// socket. The check and the bind that follows are not atomic: two servers
// started at the same instant on the same stale path may still race.
func clearStaleSocket(ctx context.Context, path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("engine: unix socket path: %w", err)
	case fi.Mode()&fs.ModeSocket == 0:
		return fmt.Errorf("engine: %s exists and is not a socket", path)
	}
	d := net.Dialer{Timeout: staleDialTimeout}
	c, err := d.DialContext(ctx, "unix", path)
	switch {
	case err == nil:
		_ = c.Close()
		return fmt.Errorf("engine: %s%s: another server is listening on this socket", unixPrefix, path)
	case errors.Is(err, syscall.ECONNREFUSED):
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("engine: removing the stale socket: %w", err)
		}
		return nil
	case errors.Is(err, syscall.EAGAIN):
		// A full backlog: a live server that is slow to accept.
		return fmt.Errorf("engine: %s%s: another server is listening on this socket", unixPrefix, path)
	}
	return fmt.Errorf("engine: %s%s: cannot tell whether the socket is in use: %w", unixPrefix, path, err)
}

// BindError is a listen failure in the words of the reference's strerror
// ("Address already in use", "Cannot assign requested address"), with the
// address. Errno is the system's error, for errors.Is.
type BindError struct {
	Addr  string
	Errno syscall.Errno
}

func (e *BindError) Error() string {
	msg := e.Errno.Error()
	if msg != "" {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	return "engine: bind " + e.Addr + ": " + msg
}

func (e *BindError) Unwrap() error { return e.Errno }

// bindError turns net.Listen's error into a BindError when the system said
// why.
func bindError(spec Spec, err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return &BindError{Addr: spec.String(), Errno: errno}
	}
	return fmt.Errorf("engine: listen on %s: %w", spec, err)
}
