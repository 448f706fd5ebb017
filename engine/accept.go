package engine

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The Server owns its accept loop: a goroutine accepts on a Go
// net.Listener and hands each connection to gnet's event loops
// (gnet.Client.Enroll, which registers a duplicate of the socket and closes
// the original). gnet's own acceptor stops the whole engine when accept
// fails, which a burst of connections at the open-file limit makes happen;
// here running out of descriptors only refuses connections.
//
// Under descriptor pressure (EMFILE, ENFILE) the loop frees a spare
// descriptor it holds for the purpose, accepts and at once closes every
// connection waiting in the backlog, and takes the spare again: refused
// clients see their connection closed instead of hanging in the backlog,
// and the loop never spins. The cost is per connection (a dup and a close),
// never per command: the event loops serve enrolled connections exactly as
// they serve their own.

// maxAcceptBackoff bounds the pause after an accept error that is neither a
// closed listener nor descriptor exhaustion.
const maxAcceptBackoff = time.Second

// acceptor is one listening socket and its accept loop.
type acceptor struct {
	ln    net.Listener
	raw   syscall.RawConn  // ln's descriptor, for shedding connections
	spare int              // a descriptor held in reserve (the loop only)
	admit func(c net.Conn) // takes an accepted connection
	done  chan struct{}    // closed when the loop has returned
}

// newAcceptor wraps a bound listener; it must be a TCP or Unix listener.
func newAcceptor(ln net.Listener, admit func(net.Conn)) (*acceptor, error) {
	sc, ok := ln.(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("engine: cannot serve a %T (a TCP or Unix listener is needed)", ln)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	return &acceptor{ln: ln, raw: raw, spare: openSpare(), admit: admit, done: make(chan struct{})}, nil
}

// close closes the listener (the loop then returns) and, once the loop is
// over or was never started, the spare descriptor.
func (a *acceptor) close(started bool) {
	_ = a.ln.Close()
	if started {
		<-a.done
	}
	if a.spare >= 0 {
		_ = unix.Close(a.spare)
		a.spare = -1
	}
}

// acceptLoop runs until the listener is closed.
func (s *Server) acceptLoop(a *acceptor) {
	defer close(a.done)
	var delay time.Duration
	for {
		c, err := a.ln.Accept()
		if err == nil {
			delay = 0
			a.admit(c)
			continue
		}
		if errors.Is(err, net.ErrClosed) || s.stopping.Load() {
			return
		}
		if isOutOfFiles(err) {
			s.shed(a, err)
			continue
		}
		delay = min(max(2*delay, 5*time.Millisecond), maxAcceptBackoff)
		s.acceptErrs.Event(func() {
			s.log.Warn().Err(err).Float64("retry_in_ms", float64(delay)/float64(time.Millisecond)).
				Msg("accept failed")
		})
		select {
		case <-time.After(delay):
		case <-s.stopCh:
			return
		}
	}
}

// admitCount counts an accepted connection against MaxConns, or closes it
// and reports false.
func (s *Server) admitCount(c net.Conn) bool {
	n := s.open.Add(1)
	if s.cfg.MaxConns > 0 && n > int64(s.cfg.MaxConns) {
		s.open.Add(-1)
		_ = c.Close()
		s.overCap.Event(func() {
			s.log.Warn().Int("max_connections", s.cfg.MaxConns).Int64("refused", s.overCap.Take()).
				Msg("too many connections; closing new ones")
		})
		return false
	}
	return true
}

// admit hands an accepted connection to an event loop, or refuses it when
// the server is at its connection cap or the hand-over fails.
func (s *Server) admit(c net.Conn) {
	if !s.admitCount(c) {
		return
	}
	if _, err := s.cli.EnrollContext(c, nil); err != nil { // closes c
		s.open.Add(-1)
		if isOutOfFiles(err) {
			s.noFiles.Event(func() { s.logNoFiles(err) })
			return
		}
		s.acceptErrs.Event(func() {
			s.log.Warn().Err(err).Msg("cannot serve an accepted connection; closed it")
		})
	}
}

// shed refuses, while descriptors are exhausted, the connections waiting in
// the backlog: it releases the spare descriptor, accepts and closes each
// one, and takes the spare back.
func (s *Server) shed(a *acceptor, cause error) {
	n := 0
	if a.spare >= 0 {
		_ = unix.Close(a.spare)
		a.spare = -1
	}
	_ = a.raw.Control(func(fd uintptr) {
		for {
			nfd, _, err := unix.Accept4(int(fd), unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK)
			if err == unix.EINTR || err == unix.ECONNABORTED {
				continue
			}
			if err != nil {
				return
			}
			_ = unix.Close(nfd)
			n++
		}
	})
	a.spare = openSpare()
	s.noFiles.Add(int64(n))
	s.noFiles.Event(func() { s.logNoFiles(cause) })
	if n == 0 {
		// Not even the spare freed one (the limit is system-wide, or
		// the spare is lost): wait for descriptors to come back rather
		// than spin.
		select {
		case <-time.After(10 * time.Millisecond):
		case <-s.stopCh:
		}
	}
}

func (s *Server) logNoFiles(err error) {
	s.log.Warn().Err(err).Int64("open_connections", s.open.Load()).Int64("refused", s.noFiles.Take()).
		Msg("out of file descriptors; closing new connections")
}

// openSpare opens the descriptor held in reserve for shed, or returns -1.
func openSpare() int {
	fd, err := unix.Open(os.DevNull, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
}

// isOutOfFiles reports whether err means the process or the system has no
// descriptor to spare (or the kernel no memory for another socket).
func isOutOfFiles(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.ENOMEM)
}
